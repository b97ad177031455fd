// Append-only JSONL files for metrics and episodes. Resuming truncates a file back to the byte
// length recorded in the checkpoint, so lines written after it (by a killed run) are dropped.
import { appendFileSync, existsSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { describeIssues, ParseError, printable } from '@pilotrl/core';
import type { z } from 'zod';

export class JsonlWriter {
  constructor(readonly path: string) {}

  append(record: unknown): void {
    appendFileSync(this.path, `${JSON.stringify(record)}\n`);
  }

  /** Current length in bytes (0 when the file does not exist yet). */
  size(): number {
    return existsSync(this.path) ? statSync(this.path).size : 0;
  }

  truncateTo(bytes: number): void {
    if (existsSync(this.path)) truncateSync(this.path, bytes);
  }
}

/** The records of a JSONL file (none when it does not exist), each checked with `schema` when given. */
export function readJsonl<Row = unknown>(path: string, schema?: z.ZodType<Row>): Row[] {
  if (!existsSync(path)) return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new ParseError(path, undefined, `cannot read the file (${(cause as Error).message})`, { cause });
  }
  const lines = text.split('\n');
  const records: Row[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      throw new ParseError(path, index + 1, `not a JSON line: ${printable((cause as Error).message)}`, {
        cause,
      });
    }
    if (schema === undefined) {
      records.push(value as Row);
      return;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new ParseError(
        path,
        index + 1,
        `not a record of this file: ${describeIssues(parsed.error.issues).join('; ')}`,
      );
    }
    records.push(parsed.data);
  });
  return records;
}
