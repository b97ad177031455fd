// State copies of ALFWorld episodes. The engine is deterministic, so an engine built on the same
// compiled game and given the same commands is in the same state and has the same future; it
// shares nothing mutable with the original (the compiled game is read-only). A copy costs one
// engine construction (a few ms for a generated task) plus the replay of the commands played.
import { EnvError } from '@pilotrl/core';
import { GameEngine } from './engine';
import type { CompiledGame } from './game';

/** A fresh engine on `game` that has played `commands` from the start. */
export function replayedEngine(game: CompiledGame, commands: readonly string[]): GameEngine {
  const engine = new GameEngine(game);
  for (const [index, command] of commands.entries()) {
    const { valid } = engine.step(command);
    if (!valid) {
      throw new EnvError(
        `alfworld: replaying command ${index + 1} (${JSON.stringify(command)}) for a state copy was refused; the game does not replay deterministically`,
      );
    }
  }
  return engine;
}
