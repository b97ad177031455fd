#!/usr/bin/env node
// `alfworld-replay <game-or-problem-file> <actions-file> [--dialect legacy|current]`
import { runReplayCommand } from './replay-command';

process.exitCode = runReplayCommand(process.argv.slice(2), process);
