// Tasks of a remote env by number: a split is a range of numbers, each task's seed is its number
// (AgentGym's item number, or the seed an OpenEnv server plays), so a trainer pages through a
// server's tasks like any other task source.
import {
  InvalidArgumentError,
  type OracleSolution,
  parseOrThrow,
  type TaskRef,
  type TaskSource,
  taskRange,
} from '@pilotrl/core';
import { z } from 'zod';

export const remoteTasksOptionsSchema = z.strictObject({
  /** The env id the source reports (the remote env's `envId`). */
  envId: z.string().min(1),
  /** Each split as numbers `[start, start + count)`, e.g. AgentGym ALFWorld's `{train: {count: 2420}, test: {start: 2420, count: 200}}`. */
  splits: z
    .record(
      z.string().min(1),
      z.strictObject({
        start: z.number().int().nonnegative().default(0),
        count: z.number().int().nonnegative(),
      }),
    )
    .refine((splits) => Object.keys(splits).length > 0, 'give at least one split'),
  /**
   * The task id of number `n`. Default: AgentGym's item id `<envId>_<n>`, which an AgentGym remote
   * env reads back as `n`. For OpenEnv, return an id the server knows (it is sent as `task_id`).
   */
  taskId: z.custom<(n: number) => string>((value) => typeof value === 'function').optional(),
  /** An expert for a task, when one is known on this side (e.g. a game's recorded walkthrough). */
  oracle: z
    .custom<(task: TaskRef) => Promise<OracleSolution>>((value) => typeof value === 'function')
    .optional(),
});
export type RemoteTasksOptions = z.input<typeof remoteTasksOptionsSchema>;

export function remoteTasks(options: RemoteTasksOptions): TaskSource {
  const { envId, splits, taskId, oracle } = parseOrThrow(
    remoteTasksOptionsSchema,
    options,
    'remote tasks options',
  );
  const idOf = taskId ?? ((n: number) => `${envId}_${n}`);
  const splitOf = (split: string) => {
    const found = splits[split];
    if (found === undefined) {
      throw new InvalidArgumentError(
        `${envId}: no split "${split}"; the splits are ${Object.keys(splits).join(', ')}`,
      );
    }
    return found;
  };
  return {
    envId,
    splits: () => Object.keys(splits),
    count: (split) => splitOf(split).count,
    async tasks(split, range) {
      const { start: first, count } = splitOf(split);
      const { start, end } = taskRange(envId, range, count);
      return Array.from({ length: end - start }, (_, i) => {
        const n = first + start + i;
        return { taskId: idOf(n), split, seed: n };
      });
    },
    ...(oracle === undefined ? {} : { oracle }),
  };
}
