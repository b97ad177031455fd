// Reward functions and judges: episode → named components; plan → rubric scores.
import { z } from 'zod';
import type { ChatModel } from './chat-model';
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
  /**
   * The step of an episode the plan is judged at (PilotRL's per-step judge): the plan above is the
   * one in force before this step's action. Absent when the plan is judged on its own.
   */
  step: z
    .object({
      /** The turn's index in the episode. */
      index: z.number().int().nonnegative(),
      /** The command sent to the env, or null when the model's output did not parse. */
      action: z.string().nullable(),
      /** What the env answered to the action; absent when nothing was recorded (the last turn). */
      feedback: z.string().optional(),
      /** The plan step the agent was on (0-based; the plan's length once every step is done). */
      planStep: z.number().int().nonnegative().optional(),
      /** Whether the env's step check found that this action carried out that step, where it checked. */
      planStepDone: z.boolean().optional(),
    })
    .optional(),
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

/** What a reward is told of the run it scores, when a stage's reward is composed. */
export interface RewardContext<Fn extends RewardFn = RewardFn> {
  /** The paradigm of the agent whose episodes it scores. */
  readonly paradigm: 'adaplan' | 'react';
  /** The agent's token limits: a plan's and an action's. */
  readonly maxPlanTokens: number;
  readonly maxActionTokens: number;
  /** The stage's overlong buffer: completions within this many tokens of the limit are penalised. */
  readonly overlongBuffer: number;
  /** The run's plan judge as a reward (the plan in force at each step judged, then averaged). */
  planJudge(): Fn;
}

/**
 * What a reward needs of the run, checked when a config is read: `plans`, an AdaPlan agent (a ReAct
 * env of a mixture is scored without it); `planSteps`, plans in the env's plan-step vocabulary,
 * whose env checks the rollout records as it plays.
 */
export type RewardRequirement = 'plans' | 'planSteps';

/** One reward a stage's `rewards:` can weigh by its id, as registered. */
export interface RewardDescriptor<Fn extends RewardFn = RewardFn> {
  readonly id: string;
  readonly description?: string;
  readonly requires: readonly RewardRequirement[];
  /** The stage kinds whose reward it may be part of; every kind when absent. */
  readonly stageKinds?: readonly string[];
  create(context: RewardContext<Fn>): Fn;
}

/** What a judge is given when a run makes it: the config's chat model (`llm`), where it has one. */
export interface JudgeContext {
  readonly chatModel?: ChatModel;
}

/** One plan judge a stage can name (`judge: <id>`), as registered; `llm` requires a chat model. */
export interface JudgeDescriptor {
  readonly id: string;
  readonly description?: string;
  readonly requires: readonly 'llm'[];
  create(context: JudgeContext): Judge;
}
