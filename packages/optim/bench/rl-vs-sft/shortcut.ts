// Hindsight shortcuts of won episodes: a win that wandered before it found what it needed is
// replayed without its detours. Any deterministic env that can be reset to the same task will do:
// the only knowledge used is the episode's own commands and the env's answers to them, so a long
// search that ended at the right receptacle becomes a demonstration of going there first.
import type { TaskRef, TextEnv } from '@pilotrl/core';

type TaskKey = Pick<TaskRef, 'seed' | 'taskId'>;

export interface Replay {
  /** How many of the commands it took to win; undefined when they did not win. */
  wonAfter: number | undefined;
  /** The index of the first command that was not admissible when its turn came (else the length). */
  stuckAt: number;
}

/** Replays `actions` from a reset of `task`, stopping at a win or at an inadmissible command. */
export async function replay(env: TextEnv, task: TaskKey, actions: readonly string[]): Promise<Replay> {
  let step = await env.reset({ seed: task.seed, taskId: task.taskId });
  for (const [index, action] of actions.entries()) {
    if (!step.admissibleActions.includes(action)) return { wonAfter: undefined, stuckAt: index };
    step = await env.step(action);
    if (step.info.won) return { wonAfter: index + 1, stuckAt: actions.length };
    if (step.terminated || step.truncated) return { wonAfter: undefined, stuckAt: index + 1 };
  }
  return { wonAfter: undefined, stuckAt: actions.length };
}

const without = (actions: readonly string[], start: number, length: number) => [
  ...actions.slice(0, start),
  ...actions.slice(start + length),
];

/**
 * A shorter win, if one run of commands can go (the longest such run first), or two runs can go
 * together where neither can alone. A second run only helps when it starts after the first and no
 * later than the command the first removal got stuck at, which keeps the pairs to try few.
 */
async function shorten(env: TextEnv, task: TaskKey, actions: readonly string[]) {
  const stuck = new Map<string, number>();
  for (let length = actions.length - 1; length >= 1; length--) {
    for (let start = 0; start + length <= actions.length - 1; start++) {
      const candidate = without(actions, start, length);
      const result = await replay(env, task, candidate);
      if (result.wonAfter !== undefined) return candidate.slice(0, result.wonAfter);
      stuck.set(`${start}/${length}`, result.stuckAt);
    }
  }
  for (let length = actions.length - 2; length >= 1; length--) {
    for (let start = 0; start + length <= actions.length - 2; start++) {
      const first = without(actions, start, length);
      const stuckAt = stuck.get(`${start}/${length}`)!;
      for (let second = start + 1; second <= Math.min(stuckAt, first.length - 2); second++) {
        for (let secondLength = first.length - 1 - second; secondLength >= 1; secondLength--) {
          const candidate = without(first, second, secondLength);
          const result = await replay(env, task, candidate);
          if (result.wonAfter !== undefined) return candidate.slice(0, result.wonAfter);
        }
      }
    }
  }
  return undefined;
}

/**
 * The won command sequence with its detours removed: shortened by replay until no run of commands,
 * nor two runs together, can go. Throws when `actions` do not win as given, since then there is
 * nothing to shorten.
 */
export async function shortcut(env: TextEnv, task: TaskKey, actions: readonly string[]): Promise<string[]> {
  const given = await replay(env, task, actions);
  if (given.wonAfter === undefined) {
    throw new Error(`shortcut: the commands given for ${task.taskId} do not replay to a win`);
  }
  let current = actions.slice(0, given.wonAfter);
  while (true) {
    const shorter = await shorten(env, task, current);
    if (shorter === undefined) return current;
    current = shorter;
  }
}
