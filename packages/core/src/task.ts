// Task sources: named splits of playable tasks, with an optional expert.
import { z } from 'zod';

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
  /** An expert solution and reference plan, when the source has one. */
  oracle?(task: TaskRef): Promise<OracleSolution>;
}
