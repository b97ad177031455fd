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

/** A file or text could not be parsed; the message names the source and the line. */
export class ParseError extends PilotRLError {
  static override readonly errorName = 'ParseError';
  readonly source: string;
  readonly line: number | undefined;

  constructor(source: string, line: number | undefined, problem: string, options?: { cause?: unknown }) {
    super(`${source}${line === undefined ? '' : `:${line}`}: ${problem}`, options);
    this.source = source;
    this.line = line;
  }
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
 * Parses `value` with `schema`, or throws an `InvalidArgumentError` that names `what` and every
 * offending path, so a caller sees all problems at once.
 */
export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what: string,
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return `  ${path}: ${issue.message}`;
  });
  throw new InvalidArgumentError(`Invalid ${what}:\n${problems.join('\n')}`);
}
