// The streams a command talks to, so commands run the same in a terminal and in tests.
import type { Readable } from 'node:stream';

export interface CliIo {
  stdin: Readable;
  stdout: { write(text: string): boolean };
  stderr: { write(text: string): boolean; isTTY?: boolean };
}

export const processIo = (): CliIo => ({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
