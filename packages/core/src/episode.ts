// Episode and turn records: what a rollout produced, token for token, and how it was rewarded.
import { z } from 'zod';
import { judgeResultSchema, rewardComponentsSchema } from './reward';
import { stepCheckRecordSchema } from './step-checks';
import { planSchema } from './task';

export const EPISODE_FORMAT_VERSION = 1;

/**
 * One call of the policy: the exact token sequence it saw and produced. `tokenIds` is prompt +
 * completion; `lossMask` is 1 on model-generated tokens only; `logprobs` holds the sampler's
 * logprob on model tokens and 0 elsewhere.
 */
export const generationSchema = z
  .object({
    /** What this generation was for: writing/revising the plan, or acting. */
    kind: z.enum(['plan', 'act']),
    text: z.string(),
    tokenIds: z.array(z.number().int().nonnegative()),
    lossMask: z.array(z.union([z.literal(0), z.literal(1)])),
    logprobs: z.array(z.number()),
    policyVersion: z.number().int().nonnegative(),
    finishReason: z.enum(['stop', 'length', 'choice']),
    /**
     * For constrained decoding: per token, the ids the sampler could pick from (null where it was
     * not restricted, e.g. prompt tokens); `logprobs` are normalised over these sets.
     */
    allowedTokenIds: z.array(z.array(z.number().int().nonnegative()).min(1).nullable()).optional(),
  })
  .refine(
    (g) =>
      g.lossMask.length === g.tokenIds.length &&
      g.logprobs.length === g.tokenIds.length &&
      (g.allowedTokenIds === undefined || g.allowedTokenIds.length === g.tokenIds.length),
    { message: 'tokenIds, lossMask, logprobs and allowedTokenIds must have the same length' },
  );
export type Generation = z.infer<typeof generationSchema>;

export const turnSchema = z.object({
  index: z.number().int().nonnegative(),
  /** Env text the agent saw before acting this turn. */
  observation: z.string(),
  admissibleActions: z.array(z.string()),
  generations: z.array(generationSchema),
  /** The parsed thought, if the paradigm has one. */
  thought: z.string().nullable(),
  /** The command sent to the env, or null when the output could not be parsed. */
  action: z.string().nullable(),
  /** Why the model output was rejected, or null when it parsed. */
  formatError: z.string().nullable(),
  /** Env reward for this step, and whether the env accepted the action. */
  envReward: z.number(),
  valid: z.boolean(),
  /** Per-turn reward components (e.g. `invalid_action`, `step_pass`). */
  rewards: rewardComponentsSchema,
  /**
   * This turn's share of the episode's scalar `reward`, where rewards are credited per turn (the
   * turn a plan step passed, a loop was made, the episode ended): the shares of all turns sum to
   * `reward` (see `turnRewards`). Absent when the whole reward belongs to the episode.
   */
  reward: z.number().refine(Number.isFinite, 'must be finite').optional(),
});
export type Turn = z.infer<typeof turnSchema>;

export const planRevisionSchema = z.object({
  /** The turn before which this plan was in force. */
  turn: z.number().int().nonnegative(),
  steps: planSchema,
  /** Where the plan came from: the policy itself, the env's oracle, an LLM, or a user. */
  source: z.enum(['policy', 'oracle', 'llm', 'external']),
  /** How many leading steps were already executed and kept fixed. */
  fixedSteps: z.number().int().nonnegative(),
});
export type PlanRevision = z.infer<typeof planRevisionSchema>;

export const episodeSchema = z.object({
  formatVersion: z.literal(EPISODE_FORMAT_VERSION),
  id: z.string().min(1),
  envId: z.string().min(1),
  taskId: z.string().min(1),
  split: z.string(),
  seed: z.number().int().nonnegative(),
  /** Episodes of one GRPO group share task and seed; `sampleIndex` tells them apart. */
  groupId: z.string().min(1),
  sampleIndex: z.number().int().nonnegative(),
  paradigm: z.string().min(1),
  task: z.string(),
  taskType: z.string().optional(),
  initialObservation: z.string(),
  turns: z.array(turnSchema),
  planHistory: z.array(planRevisionSchema),
  won: z.boolean(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  /** Sum of env rewards. */
  envReturn: z.number(),
  /** Episode-level reward components, each kept by name. */
  rewardComponents: rewardComponentsSchema,
  /** The combined scalar reward the optimizer uses, once rewards are applied. */
  reward: z.number().optional(),
  judge: judgeResultSchema.optional(),
  /** What the env's step checks found of the plan steps, where they were evaluated. */
  stepChecks: stepCheckRecordSchema.optional(),
  metadata: z.record(z.string(), z.unknown()),
});
export type Episode = z.infer<typeof episodeSchema>;
