// Plan-quality reward (PilotRL stage 2): a judge scores the plan the policy wrote, and the three
// rubric scores become reward components.
import {
  type Episode,
  InvalidArgumentError,
  type Judge,
  type JudgeInput,
  type JudgeResult,
  mean,
  type PlanRevision,
  parseOrThrow,
} from '@pilotrl/core';
import { z } from 'zod';
import type { EpisodeRewardFn } from './reward-fn';

export const judgeRewardOptionsSchema = z.object({
  /**
   * Which plan to judge: the first one the policy wrote, the last one in force, or (`per-step`,
   * PilotRL's stage 2) the plan in force at every step, judged with that step's action and the
   * env's answer (`perStepJudgeInputs`): each rubric is averaged over the steps that had a
   * policy-written plan in force.
   */
  plan: z.enum(['first', 'last', 'per-step']).default('first'),
  /**
   * An episode with no plan written by the policy (e.g. its plan did not parse): `'error'` throws;
   * `{ score }` gives `plan_quality` = score and no judge components or verdict. A score of 0, the
   * lowest a judged plan gets, keeps a malformed plan from scoring better than a poor one.
   */
  missingPlan: z
    .union([z.literal('error'), z.object({ score: z.number().finite() }).strict()])
    .default('error'),
});

const rubric = (verdict: JudgeResult) => [
  verdict.correctness.score,
  verdict.followability.score,
  verdict.standardization.score,
];

/** One plan judged on its own, against what the agent had seen when it was written. */
function planInput(episode: Episode, revision: PlanRevision, reference: JudgeInput['reference']): JudgeInput {
  return {
    task: episode.task,
    plan: revision.steps,
    observation: episode.turns[revision.turn]?.observation ?? episode.initialObservation,
    envId: episode.envId,
    ...(reference === undefined ? {} : { reference }),
  };
}

/**
 * PilotRL's per-step judge inputs: one per turn that had a policy-written plan in force, with that
 * plan, the turn's action and the env's answer to it (the next turn's observation; the episode's
 * `metadata.finalObservation` after the last turn). Where the env's step checks were recorded, each
 * input also says which plan step the agent was on and whether this action carried it out.
 */
export function perStepJudgeInputs(episode: Episode, reference?: JudgeInput['reference']): JudgeInput[] {
  const passed = episode.stepChecks?.passed;
  const finalObservation = episode.metadata.finalObservation;
  return episode.turns.flatMap((turn, position) => {
    const inForce = episode.planHistory.filter((revision) => revision.turn <= turn.index).at(-1);
    if (inForce?.source !== 'policy') return [];
    const feedback =
      episode.turns[position + 1]?.observation ??
      (typeof finalObservation === 'string' ? finalObservation : undefined);
    const checked =
      passed === undefined
        ? {}
        : {
            // Steps pass in plan order, and a revised plan keeps the count of steps passed.
            planStep: passed.filter((pass) => pass.turn < turn.index).length,
            planStepDone: passed.some((pass) => pass.turn === turn.index),
          };
    return [
      {
        ...planInput(episode, inForce, reference),
        step: {
          index: turn.index,
          action: turn.action,
          ...(feedback === undefined ? {} : { feedback }),
          ...checked,
        },
      },
    ];
  });
}

export interface JudgeRewardHooks {
  judge: Judge;
  /** The oracle's reference for an episode's task, when there is one. */
  reference?: (episode: Episode) => Promise<JudgeInput['reference']> | JudgeInput['reference'];
}

/**
 * Components `judge_correctness`, `judge_followability`, `judge_standardization` (1-5 each) and
 * `plan_quality` = (mean - 1) / 4, in [0, 1]. The verdict is kept for `episode.judge`.
 */
export function createJudgeReward(
  hooks: JudgeRewardHooks,
  options: z.input<typeof judgeRewardOptionsSchema> = {},
): EpisodeRewardFn {
  const config = parseOrThrow(judgeRewardOptionsSchema, options, 'judge reward options');
  const verdicts = new WeakMap<Episode, JudgeResult>();
  return {
    name: 'plan_quality',
    async compute(episode): Promise<Record<string, number>> {
      const written = episode.planHistory.filter((revision) => revision.source === 'policy');
      const judged =
        config.plan === 'per-step' ? written : [config.plan === 'first' ? written[0] : written.at(-1)];
      const revisions = judged.filter((revision) => revision !== undefined);
      let scores: number[];
      if (revisions.length === 0) {
        if (config.missingPlan !== 'error') return { plan_quality: config.missingPlan.score };
        throw new InvalidArgumentError(
          `Episode ${episode.id} has no plan written by the policy to judge (planHistory source "policy"); pass { missingPlan: { score } } to score such episodes`,
        );
      }
      const reference = hooks.reference ? await hooks.reference(episode) : undefined;
      if (config.plan === 'per-step') {
        const inputs = perStepJudgeInputs(episode, reference);
        // Every step had an unparsed or oracle plan in force: the first policy plan is judged alone.
        const results = await hooks.judge.judge(
          inputs.length > 0 ? inputs : [planInput(episode, revisions[0]!, reference)],
        );
        verdicts.set(episode, results[0]!);
        const perStep = results.map(rubric);
        scores = [0, 1, 2].map((k) => mean(perStep.map((step) => step[k]!)));
      } else {
        const [result] = await hooks.judge.judge([planInput(episode, revisions[0]!, reference)]);
        verdicts.set(episode, result!);
        scores = rubric(result!);
      }
      return {
        judge_correctness: scores[0]!,
        judge_followability: scores[1]!,
        judge_standardization: scores[2]!,
        plan_quality: (mean(scores) - 1) / 4,
      };
    },
    judgeResult: (episode) => verdicts.get(episode),
  };
}
