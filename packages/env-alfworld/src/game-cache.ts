// Compiled games shared by the ALFWorld envs of a process. Compiling a game (parse, ground, index)
// costs tens of milliseconds against a fraction of one for a step, and the envs of a vector env, of
// a GRPO group or of repeated evaluations reset to the same tasks. A compiled game and the indexes
// the engine derives from it are read-only during play; each episode plays on its own `GameEngine`.
import type { CompiledGame } from './game';

/** A task's compiled game with the text the env reports beside it. */
export interface CachedGame {
  readonly game: CompiledGame;
  readonly task: string;
  readonly taskType: string | undefined;
}

/** A least-recently-used cache of at most `maxGames` compiled games; 0 keeps none. */
export class GameCache {
  private readonly games = new Map<string, CachedGame>();

  constructor(readonly maxGames: number) {}

  get size(): number {
    return this.games.size;
  }

  /**
   * The game under `key`, from `compile` when it is not held. The key must name everything the
   * compiled game depends on; a game whose compile throws is not kept.
   */
  get(key: string, compile: () => CachedGame): CachedGame {
    const held = this.games.get(key);
    if (held !== undefined) {
      this.games.delete(key);
      this.games.set(key, held);
      return held;
    }
    const compiled = compile();
    if (this.maxGames === 0) return compiled;
    this.games.set(key, compiled);
    if (this.games.size > this.maxGames) this.games.delete(this.games.keys().next().value!);
    return compiled;
  }
}

const sharedCaches = new Map<number, GameCache>();

/** The process's cache of `maxGames` games: every env configured with that size uses this one. */
export function sharedGameCache(maxGames: number): GameCache {
  let cache = sharedCaches.get(maxGames);
  if (cache === undefined) {
    cache = new GameCache(maxGames);
    sharedCaches.set(maxGames, cache);
  }
  return cache;
}
