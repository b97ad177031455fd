// What a rollout is asked to play (its options, checked at the boundary) and what its caller hears
// while it runs.
import { type Episode, taskRefSchema } from '@pilotrl/core';
import { z } from 'zod';
import type { TestTimeSearch } from '../test-time-search';
import type { TurnZeroReport } from '../turn-zero-ends';

export const rolloutOptionsSchema = z
  .object({
    /** The env kind, recorded in every episode and used to pick the prompt template. */
    envId: z.string().min(1),
    tasks: z.array(taskRefSchema).min(1),
    /** Samples per task (a GRPO group); they share the task and the env seed. */
    groupSize: z.number().int().positive().default(1),
    /** Prefix of group and episode ids. */
    runId: z.string().min(1).default('rollout'),
    /** Base of the per-request sampling seeds. */
    seed: z.number().int().nonnegative().default(0),
    /**
     * Per task, a goal that replaces the one the env states (e.g. a hindsight goal the episode is
     * replayed for); `null` keeps the env's. Same length as `tasks`.
     */
    goals: z.array(z.string().min(1).nullable()).optional(),
    /** Test-time search (best-of-N plans, look-ahead over env copies); none by default. */
    search: z
      .custom<TestTimeSearch>((value) => typeof value === 'object' && value !== null, {
        message: 'search must be a test-time search ({ kind: "best-of-n" | "lookahead", ... })',
      })
      .optional(),
    /**
     * Record each episode's `stepChecks` as it is played: the env it plays on checks the plan in
     * force after every turn against its state (core's `StepChecks`, bookkept by
     * `createStepCheckRecorder`), for rewards paid by plan step (`step_pass`). Needs a vector env
     * over envs that offer step checks.
     */
    recordStepChecks: z.boolean().default(false),
  })
  .refine((options) => options.goals === undefined || options.goals.length === options.tasks.length, {
    message: 'goals must have one entry per task',
    path: ['goals'],
  });
export type RolloutOptions = z.input<typeof rolloutOptionsSchema>;

/** What a caller hears while a rollout runs. */
export interface RolloutHooks {
  /** Each wave's episodes as soon as they finish (so a failure later loses none of them). */
  onEpisodes?(episodes: readonly Episode[]): void | Promise<void>;
  /**
   * Most episodes (more than half, at least a few) ended at turn 0: their first prompt did not fit
   * the context, the env admitted no command, or the env failed at once. Called once per cause at
   * the end of the rollout. Without this hook the rollout warns instead (`process.emitWarning`,
   * codes `TURN_ZERO_WARNING_CODES`), once per cause per process.
   */
  onTurnZeroEnds?(report: TurnZeroReport): void;
}
