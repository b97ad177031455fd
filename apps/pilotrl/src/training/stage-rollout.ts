// The rollout every training iteration of a stage starts with, whatever its algorithm: tasks
// drawn from the training split (of each env by weight, in a mixture), played in groups with the
// current weights (recording the plan steps the env's checks pass, where the rewards pay for them),
// scored with the stage's rewards; and the metrics every stage reports around its algorithm's own.
import { type Agent, createVectorEnv, rollout } from '@pilotrl/agent';
import { ConfigError, type Episode, type Rng, type TaskRef } from '@pilotrl/core';
import { oracleSolution } from '../plugins/registry';
import { drawEnvCounts, perEnvMetrics, type RunEnv } from '../run/run-envs';
import { agentOptionsFor, createAgent } from '../run/run-setup';
import { episodeMetrics } from './phase-metrics';
import type { Phase } from './phase-plan';
import type { RunContext } from './phase-runner';
import { createStageScorer } from './stage-rewards';
import { turnZeroNotice } from './turn-zero-notice';

export interface StageRollout {
  /** The run's envs, played this iteration or not. */
  envs: readonly RunEnv[];
  /** Each env's agent and the episodes it played (envs drawn no task this iteration left out). */
  played: { env: RunEnv; agent: Agent; episodes: Episode[] }[];
  /** Every episode, scored with the stage's rewards, in env order. */
  episodes: Episode[];
  /** The judge's mean plan score, where the stage's rewards judge plans. */
  judgeScore: number | null;
  /** Wall-clock seconds of the rollout (not the scoring). */
  rolloutSeconds: number;
}

/** Plays a stage's iterations, each env on a vector env as large as one iteration's episodes. */
export function createStageRollouts(
  context: RunContext,
  phase: Phase,
): { play(rng: Rng, iteration: number): Promise<StageRollout>; close(): Promise<void> } {
  const { envs, policy } = context;
  const stage = phase.stage!;
  // Stage 1 hands an AdaPlan agent the oracle's plan of each task it plays.
  const followsOracle = stage.kind === 'follow' && stage.planSource === 'oracle';
  // Each env's settings enter the agent once per stage: its options, env and scorer.
  const players = envs.map((env) => ({
    env,
    vectorEnv: createVectorEnv(env.createEnv, { size: stage.tasksPerIteration * stage.groupSize }),
    agentOptions: agentOptionsFor(env.config, {
      stage,
      provider: env.provider,
      temperature: env.config.agent.temperature,
    }),
    scorer: createStageScorer(env.config, stage, env.provider),
  }));
  const notice = turnZeroNotice(
    context.log,
    `${phase.name} rollout`,
    (envId) => envs.find((env) => env.provider.envId === envId)?.config,
  );
  return {
    async play(rng, iteration) {
      const counts = drawEnvCounts(rng, stage.tasksPerIteration, envs);
      const played: StageRollout['played'] = [];
      let rolloutSeconds = 0;
      const scores: { score: number; episodes: number }[] = [];
      for (const [index, { env, vectorEnv, agentOptions, scorer }] of players.entries()) {
        if (counts[index] === 0) continue;
        const started = Date.now();
        const tasks = await drawTrainingTasks(
          env,
          rng,
          counts[index]!,
          followsOracle && env.config.agent.paradigm === 'adaplan',
        );
        // A sampler on this iteration's weights.
        const agent = createAgent(env.config, policy.sampler(), agentOptions);
        const episodes = await rollout(
          agent,
          vectorEnv,
          {
            envId: env.provider.envId,
            tasks,
            groupSize: stage.groupSize,
            // Group ids carry the run id; a mixture's envs may share task ids.
            runId: `${phase.name}-${iteration}${envs.length > 1 ? `-${env.id}` : ''}`,
            seed: rng.uint32() >>> 1,
            recordStepChecks: scorer.needsStepChecks,
          },
          notice,
        );
        rolloutSeconds += (Date.now() - started) / 1000;
        const { judgeScore } = await scorer.score(episodes);
        if (judgeScore !== null) scores.push({ score: judgeScore, episodes: episodes.length });
        played.push({ env, agent, episodes });
      }
      const judged = scores.reduce((sum, s) => sum + s.episodes, 0);
      return {
        envs,
        played,
        episodes: played.flatMap((p) => p.episodes),
        judgeScore: judged === 0 ? null : scores.reduce((sum, s) => sum + s.score * s.episodes, 0) / judged,
        rolloutSeconds,
      };
    },
    async close() {
      for (const { vectorEnv } of players) await vectorEnv.close();
    },
  };
}

/**
 * An env's training tasks of one iteration: a contiguous run of its split from a random offset.
 * A stage that follows the oracle's plans skips the tasks the oracle cannot solve, reading on
 * (past the end of a finite split, from its start) until it has `count` or has read the split.
 */
export async function drawTrainingTasks(
  env: RunEnv,
  rng: Rng,
  count: number,
  followsOracle: boolean,
): Promise<TaskRef[]> {
  const { provider, config } = env;
  const split = config.env.trainSplit;
  const total = provider.tasks.count(split);
  const span = total === 'unbounded' ? 1_000_000 : Math.max(1, total - count + 1);
  const offset = rng.int(span);
  if (!followsOracle) return provider.tasks.tasks(split, { offset, limit: count });
  const size = total === 'unbounded' ? Number.POSITIVE_INFINITY : total;
  const readAtMost = Math.min(size, count * SOLVABLE_READ_FACTOR);
  const kept: TaskRef[] = [];
  for (let read = 0, at = offset; kept.length < count && read < readAtMost; ) {
    const page = await provider.tasks.tasks(split, {
      offset: at,
      limit: Math.min(count - kept.length, readAtMost - read),
    });
    if (page.length === 0) break;
    for (const task of page) if ((await oracleSolution(provider.tasks, task)) !== undefined) kept.push(task);
    read += page.length;
    at += page.length;
    if (at >= size) at = 0;
  }
  if (kept.length === 0) {
    throw new ConfigError(
      `env "${env.id}": the oracle solves none of the ${split} tasks read, so a stage cannot follow its plans; use planSource: llm or another split`,
    );
  }
  return kept;
}

/** How many tasks per task wanted a stage that follows the oracle reads before it gives up. */
const SOLVABLE_READ_FACTOR = 20;

/**
 * An iteration's metrics: the episodes' statistics and the plan judge's score, then the
 * algorithm's own (`charts/updated` last among them), then the env steps played and their rate.
 */
export function stageMetrics(
  { envs, episodes, judgeScore, rolloutSeconds }: StageRollout,
  algorithm: Record<string, number>,
): Record<string, number> {
  const steps = episodes.reduce((sum, e) => sum + e.turns.length, 0);
  return {
    ...episodeMetrics(episodes),
    ...perEnvMetrics(envs, episodes),
    ...(judgeScore === null ? {} : { 'charts/plan_judge_score': judgeScore }),
    ...algorithm,
    'charts/env_steps': steps,
    'charts/SPS': steps / Math.max(1e-3, rolloutSeconds),
  };
}
