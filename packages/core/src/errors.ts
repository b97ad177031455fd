// Error classes with stable names. `isInstance()` works across duplicated copies of this package
// (it checks a global symbol and the name, not the prototype chain).
import type { z } from 'zod';

const pilotrlErrorMarker = Symbol.for('@pilotrl/core/error');

export class PilotRLError extends Error {
  static readonly errorName: string = 'PilotRLError';
  readonly [pilotrlErrorMarker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = (new.target as typeof PilotRLError).errorName;
  }

  /** True when `error` is this class (or, for `PilotRLError`, any error of this package family). */
  static isInstance(error: unknown): boolean {
    if (typeof error !== 'object' || error === null || !(pilotrlErrorMarker in error)) return false;
    return this.errorName === PilotRLError.errorName || (error as unknown as Error).name === this.errorName;
  }
}

/** A value crossing a public boundary (argument, config, file, model output) is wrong. */
export class InvalidArgumentError extends PilotRLError {
  static override readonly errorName = 'InvalidArgumentError';
}

/** A configuration key is unknown, missing or inconsistent. */
export class ConfigError extends PilotRLError {
  static override readonly errorName = 'ConfigError';
}

/** A name was looked up in a registry or a collection that does not hold it. */
export class NotFoundError extends PilotRLError {
  static override readonly errorName = 'NotFoundError';
}

/**
 * A file or text could not be parsed; the message names the source and the line. It is one line
 * of bounded length: what the problem quotes from the text is made `printable`.
 */
export class ParseError extends PilotRLError {
  static override readonly errorName = 'ParseError';
  readonly source: string;
  readonly line: number | undefined;

  constructor(source: string, line: number | undefined, problem: string, options?: { cause?: unknown }) {
    super(
      `${printable(source, 500)}${line === undefined ? '' : `:${line}`}: ${printable(problem, 1000)}`,
      options,
    );
    this.source = source;
    this.line = line;
  }
}

/**
 * An oracle proved a task unsolvable (or beyond it). Training leaves such a task out of whatever
 * needs the oracle's solution (demonstrations, stage 1's plans); evaluation still plays it.
 */
export class UnsolvableTaskError extends PilotRLError {
  static override readonly errorName = 'UnsolvableTaskError';
}

/** An operation ran past its time limit. */
export class TimeoutError extends PilotRLError {
  static override readonly errorName = 'TimeoutError';
}

/** An environment failed in a way that is not an inadmissible action (those are observations). */
export class EnvError extends PilotRLError {
  static override readonly errorName = 'EnvError';
}

/** A checkpoint is missing, damaged or does not match what loads it. */
export class CheckpointError extends PilotRLError {
  static override readonly errorName = 'CheckpointError';
}

/**
 * Text from outside (a file's bytes, a key, a server's reply) made fit to quote in an error
 * message: control characters and line breaks written as `\uXXXX` escapes, and what is past
 * `maxLength` characters cut and counted, so a message stays one readable line of bounded length.
 */
export function printable(text: string, maxLength = 200): string {
  let kept = text;
  if (text.length > maxLength) {
    // A cut between the halves of a surrogate pair would leave half a character.
    const end = /[\ud800-\udbff]/.test(text[maxLength - 1]!) ? maxLength - 1 : maxLength;
    kept = `${text.slice(0, end)}... (${text.length - end} more characters)`;
  }
  return kept.replace(
    /[\p{Cc}\u2028\u2029]/gu,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Problems listed in one message at most; the rest are counted. */
const LISTED_ISSUES = 20;

/**
 * One `path: message` line per zod issue, with paths and messages made printable, at most 20 lines
 * and a last one that counts the rest: an input with thousands of problems gets a readable message.
 */
export function describeIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): string[] {
  const lines = issues.slice(0, LISTED_ISSUES).map((issue) => {
    const path = issue.path.length > 0 ? printable(issue.path.map(String).join('.'), 120) : '(root)';
    return `${path}: ${printable(issue.message, 400)}`;
  });
  const more = issues.length - LISTED_ISSUES;
  if (more > 0) lines.push(`... and ${more} more problem${more === 1 ? '' : 's'}`);
  return lines;
}

/**
 * Parses `value` with `schema`, or throws an `InvalidArgumentError` that names `what` and every
 * offending path (up to 20), so a caller sees all problems at once.
 */
export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what: string,
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = describeIssues(result.error.issues).map((line) => `  ${line}`);
  throw new InvalidArgumentError(`Invalid ${what}:\n${problems.join('\n')}`);
}
