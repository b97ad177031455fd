// Replays a list of commands on a game and renders the transcript the `alfworld-replay` command
// prints: the initial observation, each observation after a line `---`, then `won: true|false`.
import { readFileSync } from 'node:fs';
import { ParseError } from '@pilotrl/core';
import { GameEngine } from './engine';
import type { Dialect } from './game-file';
import { loadGame } from './loaders';

/** Plays `actions` from reset and returns the transcript text (ending with a newline). */
export function replayTranscript(engine: GameEngine, actions: readonly string[]): string {
  const parts = [engine.reset()];
  for (const action of actions) parts.push(engine.step(action).feedback);
  return `${parts.join('\n---\n')}\nwon: ${engine.won()}\n`;
}

/** Reads an actions file: one command per line; blank lines are skipped. */
export function readActionsFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ParseError(path, undefined, `cannot read the actions file (${(error as Error).message})`, {
      cause: error,
    });
  }
  return text.split(/\r?\n/).filter((line) => line.trim() !== '');
}

/** The transcript of replaying an actions file on a game file, problem file or trial directory. */
export function replayFiles(
  gamePath: string,
  actionsPath: string,
  options: { dialect?: Dialect } = {},
): string {
  const loaded = loadGame(gamePath, options);
  return replayTranscript(new GameEngine(loaded.game), readActionsFile(actionsPath));
}
