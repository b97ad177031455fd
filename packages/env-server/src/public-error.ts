// What a client hears of an error: the message of our own typed errors (a bad id, a full pool, a
// step past its deadline: things the client can act on), cut to a bounded length; for anything else
// (an env's internal failure, a data file that does not parse) a fixed sentence, with the cause
// written to the server's log instead, so no answer carries a stack, a path or a file's contents.
import { ParseError, PilotRLError } from '@pilotrl/core';

const MAX_MESSAGE_CHARS = 600;

export type ServerLog = (line: string) => void;

export const stderrLog: ServerLog = (line) => process.stderr.write(`${line}\n`);

export function publicMessage(error: unknown, log: ServerLog, where: string): string {
  if (PilotRLError.isInstance(error) && !ParseError.isInstance(error)) {
    const message = (error as Error).message;
    return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
  }
  log(`env-server: ${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return `${where} failed inside the server; its log has the cause`;
}
