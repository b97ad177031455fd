// Append-only JSONL files for metrics and episodes. Resuming truncates a file back to the byte
// length recorded in the checkpoint, so lines written after it (by a killed run) are dropped.
import { appendFileSync, existsSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { ParseError } from '@pilotrl/core';

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

export function readJsonl(path: string): unknown[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n');
  const records: unknown[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      records.push(JSON.parse(line));
    } catch (cause) {
      throw new ParseError(path, index + 1, `not a JSON line: ${(cause as Error).message}`, { cause });
    }
  });
  return records;
}
