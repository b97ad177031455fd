// The reward of a curriculum stage, composed from `@pilotrl/rewards` by the weights in the config:
// stage 1 (follow) outcome + plan adherence, stage 2 (plan) judge score + outcome, stage 3 (joint)
// outcome, plus any penalties configured and agent.formatErrorPenalty per malformed turn. Every
// component stays visible in the episode record. `step_pass` reads the plan steps the env's checks
// passed (`episode.stepChecks`), which the stage's rollouts record as they play (`needsStepChecks`);
// `step_pass` and `loop_penalty` are credited to the turns that earned them, which estimators that
// work turn by turn (turn-level, gae) use.
import {
  type Episode,
  type Judge,
  type JudgeInput,
  mean,
  type OracleSolution,
  type RewardContext,
  type TaskRef,
} from '@pilotrl/core';
import { createChatClient } from '@pilotrl/llm';
import {
  composeRewards,
  createJudgeReward,
  type EpisodeRewardFn,
  judgeRegistry,
  rewardRegistry,
  type WeightedReward,
} from '@pilotrl/rewards';
import type { EnvCurriculum, StageConfig } from '../config/curriculum-config';
import type { EnvProvider } from '../plugins/registry';

export interface StageScorer {
  /** Whether the rewards read step checks (`step_pass`): the rollouts scored must record them. */
  readonly needsStepChecks: boolean;
  /** Writes reward components, the scalar reward and judge verdicts into `episodes` (in place). */
  score(episodes: Episode[]): Promise<{ judgeScore: number | null }>;
}

const meanRubric = (episode: Episode) =>
  episode.judge === undefined
    ? undefined
    : mean([
        episode.judge.correctness.score,
        episode.judge.followability.score,
        episode.judge.standardization.score,
      ]);

/** The judge `id` names; one that requires `llm` gets a client of the config's `llm` section. */
function createJudge(config: EnvCurriculum, id: string): Judge {
  const descriptor = judgeRegistry.get(id);
  const { llm } = config;
  if (llm === undefined || !descriptor.requires.includes('llm')) return descriptor.create({});
  return descriptor.create({
    chatModel: createChatClient({ baseUrl: llm.baseUrl, model: llm.model, apiKeyEnv: llm.apiKeyEnv }),
  });
}

const hasPolicyPlan = (episode: Episode) =>
  episode.planHistory.some((revision) => revision.source === 'policy');

export interface PlanJudging {
  /** The `plan_quality` reward over this judge: the plan in force at each step judged, then averaged. */
  reward(): EpisodeRewardFn;
  /** Mean judge score (1-5) of each episode's plans, step by step; null when no policy wrote one. */
  judgePlans(episodes: readonly Episode[]): Promise<number | null>;
}

/** Plan judging with the oracle's plan and actions as the reference. */
export function createPlanJudging(
  config: EnvCurriculum,
  provider: EnvProvider,
  judgeId = 'reference',
): PlanJudging {
  const oracleCache = new Map<string, Promise<OracleSolution>>();
  const reference = (episode: Episode): Promise<JudgeInput['reference']> | undefined => {
    const oracle = provider.tasks.oracle?.bind(provider.tasks);
    if (oracle === undefined) return undefined;
    const key = `${episode.split}/${episode.taskId}`;
    if (!oracleCache.has(key)) {
      const task: TaskRef = { taskId: episode.taskId, split: episode.split, seed: episode.seed };
      oracleCache.set(key, oracle(task));
    }
    return oracleCache.get(key)!.then((solution) => ({ plan: solution.plan, actions: solution.actions }));
  };
  const judge = createJudge(config, judgeId);
  // An episode whose plan did not parse has no plan to judge: it gets the lowest judge score
  // (plan_quality 0), so a malformed plan never scores better than a poor one.
  // As PilotRL's stage 2: the plan in force at each step is judged, and the verdicts averaged.
  const reward = () =>
    createJudgeReward(
      { judge, reference: (episode) => reference(episode) },
      { plan: 'per-step', missingPlan: { score: 0 } },
    );
  return {
    reward,
    async judgePlans(episodes) {
      const withPlans = episodes.filter(hasPolicyPlan);
      if (withPlans.length === 0) return null;
      const judged = await composeRewards([{ fn: reward(), weight: 0 }]).applyAll(withPlans);
      const scores = judged.map(meanRubric).filter((score): score is number => score !== undefined);
      return scores.length === 0 ? null : mean(scores);
    },
  };
}

/**
 * The rollout's `format_penalty` (agent.formatErrorPenalty per malformed turn, recorded on the
 * episode and its turns) as a component that enters the reward.
 */
const formatPenalty: EpisodeRewardFn = {
  name: 'format_penalty',
  compute: (episode) => ({ format_penalty: episode.rewardComponents.format_penalty ?? 0 }),
  computeTurns: (episode) =>
    episode.turns.map((turn) => ({ format_penalty: turn.rewards.format_penalty ?? 0 })),
};

export function createStageScorer(
  config: EnvCurriculum,
  stage: StageConfig,
  provider: EnvProvider,
): StageScorer {
  const judging = createPlanJudging(config, provider, stage.kind === 'plan' ? stage.judge : 'reference');
  const context: RewardContext<EpisodeRewardFn> = {
    paradigm: config.agent.paradigm,
    maxPlanTokens: config.agent.maxPlanTokens,
    maxActionTokens: config.agent.maxActionTokens,
    overlongBuffer: stage.overlongBuffer,
    planJudge: () => judging.reward(),
  };
  // A ReAct env of a mixture plays the plan stages without plans, so the rewards that score plans skip it.
  const weighed = Object.entries(stage.rewards)
    .map(([name, weight]) => ({ descriptor: rewardRegistry.get(name), weight }))
    .filter(
      ({ descriptor }) => config.agent.paradigm === 'adaplan' || !descriptor.requires.includes('plans'),
    );
  const components: WeightedReward[] = weighed.map(({ descriptor, weight }) => ({
    fn: descriptor.create(context),
    weight,
  }));
  // agent.formatErrorPenalty costs every malformed turn, in every stage.
  components.push({ fn: formatPenalty, weight: 1 });
  const composed = composeRewards(components, { name: `${stage.kind}-reward` });
  return {
    needsStepChecks: weighed.some(({ descriptor }) => descriptor.requires.includes('planSteps')),
    async score(episodes) {
      const scored = await Promise.all(episodes.map((episode) => composed.apply(episode)));
      scored.forEach((episode, index) => {
        episodes[index] = episode;
      });
      const scores = scored.map(meanRubric).filter((s): s is number => s !== undefined);
      return { judgeScore: scores.length === 0 ? null : mean(scores) };
    },
  };
}
