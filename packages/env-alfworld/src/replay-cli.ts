#!/usr/bin/env node
// `alfworld-replay <game-or-problem-file> <actions-file> [--dialect legacy|current]`
import { PilotRLError } from '@pilotrl/core';
import { replayFiles } from './replay';

const usage =
  'usage: alfworld-replay <game.tw-pddl | initial_state.pddl | trial-dir> <actions-file> [--dialect legacy|current]';

function main(argv: readonly string[]): number {
  const args = [...argv];
  let dialect: 'legacy' | 'current' | undefined;
  const flag = args.indexOf('--dialect');
  if (flag >= 0) {
    const value = args[flag + 1];
    if (value !== 'legacy' && value !== 'current') {
      process.stderr.write(`--dialect must be legacy or current\n${usage}\n`);
      return 2;
    }
    dialect = value;
    args.splice(flag, 2);
  }
  if (args.length !== 2) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  try {
    process.stdout.write(replayFiles(args[0]!, args[1]!, dialect === undefined ? {} : { dialect }));
    return 0;
  } catch (error) {
    if (PilotRLError.isInstance(error)) {
      process.stderr.write(`alfworld-replay: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
