// Hindsight shortcuts of episodes that reached a goal: an episode that wandered before it found
// what it needed is replayed without its detours. Any deterministic env that can be reset to the
// same task will do: the only knowledge used is the episode's own commands and the env's answers
// to them, so a long search that ended at the right receptacle becomes a demonstration of going
// there first. The goal is the env's own (a win) unless another is given, such as an env's
// hindsight goal (an env's `HindsightRelabeller`, such as `@pilotrl/env-alfworld`'s).
import { InvalidArgumentError, type Reached, type TaskRef, type TextEnv } from '@pilotrl/core';

type TaskKey = Pick<TaskRef, 'seed' | 'taskId'>;

/** The env's own goal: a win. */
export const envWin: Reached = (step) => step.info.won;

export interface Replay {
  /** How many of the commands it took to reach the goal; undefined when they did not reach it. */
  reachedAfter: number | undefined;
  /** The index of the first command that was not admissible when its turn came (else the length). */
  stuckAt: number;
}

/**
 * Replays `actions` from a reset of `task`, stopping where they reach the goal, at an inadmissible
 * command, or where the episode ends.
 */
export async function replay(
  env: TextEnv,
  task: TaskKey,
  actions: readonly string[],
  reached: Reached = envWin,
): Promise<Replay> {
  let step = await env.reset({ seed: task.seed, taskId: task.taskId });
  for (const [index, action] of actions.entries()) {
    if (!step.admissibleActions.includes(action)) return { reachedAfter: undefined, stuckAt: index };
    step = await env.step(action);
    if (reached(step, actions.slice(0, index + 1)))
      return { reachedAfter: index + 1, stuckAt: actions.length };
    if (step.terminated || step.truncated) return { reachedAfter: undefined, stuckAt: index + 1 };
  }
  return { reachedAfter: undefined, stuckAt: actions.length };
}

const without = (actions: readonly string[], start: number, length: number) => [
  ...actions.slice(0, start),
  ...actions.slice(start + length),
];

/**
 * A shorter way to the goal, if one run of commands can go (the longest such run first), or two
 * runs can go together where neither can alone. A second run only helps when it starts after the
 * first and no later than the command the first removal got stuck at, which keeps the pairs to try
 * few.
 */
async function shorten(env: TextEnv, task: TaskKey, actions: readonly string[], reached: Reached) {
  const stuck = new Map<string, number>();
  for (let length = actions.length - 1; length >= 1; length--) {
    for (let start = 0; start + length <= actions.length - 1; start++) {
      const candidate = without(actions, start, length);
      const result = await replay(env, task, candidate, reached);
      if (result.reachedAfter !== undefined) return candidate.slice(0, result.reachedAfter);
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
          const result = await replay(env, task, candidate, reached);
          if (result.reachedAfter !== undefined) return candidate.slice(0, result.reachedAfter);
        }
      }
    }
  }
  return undefined;
}

/**
 * The command sequence up to the goal with its detours removed: shortened by replay until no run of
 * commands, nor two runs together, can go. Throws when `actions` do not reach the goal as given,
 * since then there is nothing to shorten.
 */
export async function shortcut(
  env: TextEnv,
  task: TaskKey,
  actions: readonly string[],
  reached: Reached = envWin,
): Promise<string[]> {
  const given = await replay(env, task, actions, reached);
  if (given.reachedAfter === undefined) {
    throw new InvalidArgumentError(
      `shortcut: the commands given for ${task.taskId} do not replay to the goal`,
    );
  }
  let current = actions.slice(0, given.reachedAfter);
  while (true) {
    const shorter = await shorten(env, task, current, reached);
    if (shorter === undefined) return current;
    current = shorter;
  }
}
