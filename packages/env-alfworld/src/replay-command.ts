// The `alfworld-replay` command: parses its arguments, prints the transcript of replaying an actions
// file on a game, and reports any failure as one line on stderr with a non-zero exit code.
import type { Dialect } from './game-file';
import { replayFiles } from './replay';

const usage =
  'usage: alfworld-replay <game.tw-pddl | initial_state.pddl | trial-dir> <actions-file> [--dialect legacy|current]';

/** Where the command writes: `process` in the CLI, buffers in tests. */
export interface ReplayCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/** Runs `alfworld-replay` with `argv` (without node and the script) and returns its exit code. */
export function runReplayCommand(argv: readonly string[], io: ReplayCommandIo): number {
  const args = [...argv];
  let dialect: Dialect | undefined;
  const flag = args.indexOf('--dialect');
  if (flag >= 0) {
    const value = args[flag + 1];
    if (value !== 'legacy' && value !== 'current') {
      io.stderr.write(`--dialect must be legacy or current\n${usage}\n`);
      return 2;
    }
    dialect = value;
    args.splice(flag, 2);
  }
  if (args.length !== 2) {
    io.stderr.write(`${usage}\n`);
    return 2;
  }
  try {
    io.stdout.write(replayFiles(args[0]!, args[1]!, dialect === undefined ? {} : { dialect }));
    return 0;
  } catch (error) {
    // Bad input raises the project's errors, whose message says what to fix; anything else is
    // reported the same way, since a stack trace tells the user of a game file nothing more.
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`alfworld-replay: ${message.replace(/\s*\n\s*/g, ' ').trim()}\n`);
    return 1;
  }
}
