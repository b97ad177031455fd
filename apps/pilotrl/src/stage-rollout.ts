// The rollout every training iteration of a stage starts with, whatever its algorithm: tasks
// drawn from the training split, played in groups with the current weights, scored with the
// stage's rewards; and the metrics every stage reports around its algorithm's own.
import { type Agent, createVectorEnv, rollout } from '@pilotrl/agent';
import type { Episode, Rng } from '@pilotrl/core';
import { episodeMetrics } from './phase-metrics';
import type { Phase } from './phase-plan';
import type { RunContext } from './phase-runner';
import { agentOptionsFor, createAgent, envOptionsFor } from './runtime';
import { createStageScorer } from './stage-rewards';

export interface StageRollout {
  /** The agent that played, for replaying what it played. */
  agent: Agent;
  /** The episodes, scored with the stage's rewards. */
  episodes: Episode[];
  /** The judge's mean plan score, where the stage's rewards judge plans. */
  judgeScore: number | null;
  /** Wall-clock seconds of the rollout (not the scoring). */
  rolloutSeconds: number;
}

/** Plays a stage's iterations on a vector env as large as one iteration's episodes. */
export function createStageRollouts(
  context: RunContext,
  phase: Phase,
): { play(rng: Rng, iteration: number): Promise<StageRollout>; close(): Promise<void> } {
  const { config, provider, policy } = context;
  const stage = phase.stage!;
  const vectorEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), {
    size: stage.tasksPerIteration * stage.groupSize,
  });
  const scorer = createStageScorer(config, stage, provider);
  return {
    async play(rng, iteration) {
      const started = Date.now();
      const tasks = await drawTasks(context, rng, stage.tasksPerIteration);
      const agent = createAgent(
        config,
        policy.sampler(),
        agentOptionsFor(config, { stage, provider, temperature: config.agent.temperature }),
      );
      const episodes = await rollout(agent, vectorEnv, {
        envId: provider.envId,
        tasks,
        groupSize: stage.groupSize,
        runId: `${phase.name}-${iteration}`,
        seed: rng.uint32() >>> 1,
      });
      const rolloutSeconds = (Date.now() - started) / 1000;
      const { judgeScore } = await scorer.score(episodes);
      return { agent, episodes, judgeScore, rolloutSeconds };
    },
    close: () => vectorEnv.close(),
  };
}

/** The training tasks of one iteration: a contiguous run of the split from a random offset. */
async function drawTasks(context: RunContext, rng: Rng, count: number) {
  const { config, provider } = context;
  const total = provider.tasks.count(config.env.trainSplit);
  const span = total === 'unbounded' ? 1_000_000 : Math.max(1, total - count + 1);
  return provider.tasks.tasks(config.env.trainSplit, { offset: rng.int(span), limit: count });
}

/**
 * An iteration's metrics: the episodes' statistics and the plan judge's score, then the
 * algorithm's own (`charts/updated` last among them), then the env steps played and their rate.
 */
export function stageMetrics(
  { episodes, judgeScore, rolloutSeconds }: StageRollout,
  algorithm: Record<string, number>,
): Record<string, number> {
  const steps = episodes.reduce((sum, e) => sum + e.turns.length, 0);
  return {
    ...episodeMetrics(episodes),
    ...(judgeScore === null ? {} : { 'charts/plan_judge_score': judgeScore }),
    ...algorithm,
    'charts/env_steps': steps,
    'charts/SPS': steps / Math.max(1e-3, rolloutSeconds),
  };
}
