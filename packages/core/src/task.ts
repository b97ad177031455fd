// Task sources: named splits of playable tasks, with an optional expert.
import { z } from 'zod';
import { InvalidArgumentError } from './errors';

export const taskRefSchema = z.object({
  taskId: z.string().min(1),
  split: z.string().min(1),
  /** The seed to pass to `env.reset` with this task. */
  seed: z.number().int().nonnegative(),
  taskType: z.string().optional(),
  /** The goal in words, when known without resetting an env. */
  description: z.string().optional(),
});
export type TaskRef = z.infer<typeof taskRefSchema>;

/** A global plan: high-level steps in order, each without its `Step N:` prefix. */
export const planSchema = z.array(z.string().min(1));
export type Plan = z.infer<typeof planSchema>;

export const oracleSolutionSchema = z.object({
  /** Exact env commands that solve the task from reset. */
  actions: z.array(z.string().min(1)).min(1),
  /** A reference global plan for the same solution. */
  plan: planSchema.min(1),
});
export type OracleSolution = z.infer<typeof oracleSolutionSchema>;

export interface TaskSource {
  readonly envId: string;
  /** Split names, e.g. `train`, `valid_seen`, `valid_unseen`. */
  splits(): readonly string[];
  /** Number of tasks in a split, or `'unbounded'` for a generator. */
  count(split: string): number | 'unbounded';
  /** Tasks of a split in a fixed order; `offset`/`limit` page through it. */
  tasks(split: string, range?: { offset?: number; limit?: number }): Promise<TaskRef[]>;
  /**
   * An expert solution and reference plan, when the source has one; rejects with an
   * `UnsolvableTaskError` for a task the oracle cannot solve.
   */
  oracle?(task: TaskRef): Promise<OracleSolution>;
}

/** A page of a split, as `TaskSource.tasks` takes it. */
export type TaskRange = { offset?: number; limit?: number };

/** How many tasks `tasks()` lists from an unbounded split when no `limit` is given. */
export const UNBOUNDED_SPLIT_PAGE = 100;

/**
 * The task indices [start, end) that `tasks(split, range)` lists from a split of `size` tasks
 * (`'unbounded'` for a generator): from `offset` (0 by default), `limit` tasks (by default the rest
 * of the split, or 100 of an unbounded one), never past the end. An offset or limit that is not a
 * whole number of at least 0 is an `InvalidArgumentError` naming the env.
 */
export function taskRange(
  envId: string,
  range: TaskRange | undefined,
  size: number | 'unbounded',
): { start: number; end: number } {
  const offset = range?.offset ?? 0;
  const limit = range?.limit ?? (size === 'unbounded' ? UNBOUNDED_SPLIT_PAGE : Math.max(0, size - offset));
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(limit) || limit < 0) {
    throw new InvalidArgumentError(
      `${envId}: a task range's offset and limit must be whole numbers of at least 0, got offset ${offset} and limit ${limit}`,
    );
  }
  return { start: offset, end: size === 'unbounded' ? offset + limit : Math.min(size, offset + limit) };
}
