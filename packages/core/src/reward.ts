// Reward functions and judges: episode → named components; plan → rubric scores.
import { z } from 'zod';
import type { Episode } from './episode';
import { planSchema } from './task';

/** Named reward components; each stays visible in the episode record. */
export const rewardComponentsSchema = z.record(
  z.string(),
  z.number().refine(Number.isFinite, 'must be finite'),
);
export type RewardComponents = z.infer<typeof rewardComponentsSchema>;

export interface RewardFn {
  /** The component name this function writes (e.g. `outcome`, `format`). */
  readonly name: string;
  compute(episode: Episode): RewardComponents | Promise<RewardComponents>;
}

export const judgeInputSchema = z.object({
  /** The goal in words. */
  task: z.string(),
  /** The plan under review. */
  plan: planSchema,
  /** What the agent saw before writing the plan (e.g. the initial observation). */
  observation: z.string().optional(),
  /** Ground truth from the env's oracle, when available. */
  reference: z.object({ plan: planSchema, actions: z.array(z.string()) }).optional(),
  envId: z.string().optional(),
});
export type JudgeInput = z.infer<typeof judgeInputSchema>;

/** PilotRL's rubric: each criterion scored 1-5 with a reason. */
export const rubricScoreSchema = z.object({
  score: z.number().int().min(1).max(5),
  reason: z.string(),
});
export type RubricScore = z.infer<typeof rubricScoreSchema>;

export const judgeResultSchema = z.object({
  correctness: rubricScoreSchema,
  followability: rubricScoreSchema,
  standardization: rubricScoreSchema,
  /** Problems found in the plan text itself, e.g. `instruction_injection`. */
  flags: z.array(z.string()),
  /** Which judge produced this. */
  judge: z.string(),
});
export type JudgeResult = z.infer<typeof judgeResultSchema>;

export interface Judge {
  readonly name: string;
  judge(inputs: readonly JudgeInput[]): Promise<JudgeResult[]>;
}
