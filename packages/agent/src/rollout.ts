// The batched rollout: N tasks × G samples, all episodes stepped in lock-step over one vector env,
// with one batched policy call per kind of request for all live episodes. Every generation is
// recorded token for token. What differs between agents (plans, actions, prompts, search) is in
// strategies chosen once per agent (rollout/strategies.ts); rollout/wave.ts schedules them.
import {
  ConfigError,
  canCheckStepsAt,
  canCopyAt,
  type Episode,
  parseOrThrow,
  type VectorEnv,
  type VectorStepChecks,
} from '@pilotrl/core';
import type { Agent } from './agent';
import { type RolloutHooks, type RolloutOptions, rolloutOptionsSchema } from './rollout/rollout-options';
import type { WaveContext } from './rollout/scheduler';
import { strategiesFor } from './rollout/strategies';
import { toEpisode, turnZeroEnd } from './rollout/to-episode';
import { runWave } from './rollout/wave';
import { resolveSearch } from './test-time-search';
import { type TurnZeroEnd, turnZeroReports, warnTurnZeroEnds } from './turn-zero-ends';

export type { EndReason } from './rollout/episode-state';
export { type RolloutHooks, type RolloutOptions, rolloutOptionsSchema };

/**
 * Plays every task `groupSize` times and returns the episodes in task order, samples in order
 * within a task. Tasks run in waves of `floor(vectorEnv.size / groupSize)` tasks. It first resets
 * the policy's caches, so that the episodes depend only on the weights, the tasks and the seed,
 * not on what the policy answered before.
 */
export async function rollout(
  agent: Agent,
  vectorEnv: VectorEnv,
  options: RolloutOptions,
  hooks: RolloutHooks = {},
): Promise<Episode[]> {
  agent.policy.resetCaches?.();
  return playEpisodes(agent, vectorEnv, options, hooks);
}

/**
 * The rollout after the reset; a look-ahead search plays its branches with it, so that they keep
 * what the rollout that searches has cached.
 */
async function playEpisodes(
  agent: Agent,
  vectorEnv: VectorEnv,
  options: RolloutOptions,
  hooks: RolloutHooks = {},
): Promise<Episode[]> {
  const config = parseOrThrow(rolloutOptionsSchema, options, 'rollout options');
  const search = config.search === undefined ? undefined : resolveSearch(config.search, agent);
  if (search?.kind === 'lookahead' && !canCopyAt(vectorEnv)) {
    throw new ConfigError(
      'lookahead search plays candidates on copies of the envs, but this vector env cannot copy them; use createVectorEnv over envs that implement copy() (StateCopies)',
    );
  }
  const tasksPerWave = Math.floor(vectorEnv.size / config.groupSize);
  if (tasksPerWave === 0) {
    throw new ConfigError(
      `a vector env of ${vectorEnv.size} envs cannot hold a group of ${config.groupSize} samples; use at least ${config.groupSize} envs`,
    );
  }
  const checking = config.recordStepChecks ? stepChecksOf(vectorEnv) : undefined;
  const strategies = strategiesFor(agent, {
    envId: config.envId,
    seed: config.seed,
    vectorEnv,
    search,
    playout: playEpisodes,
  });
  const context: WaveContext = { agent, vectorEnv, config, strategies, checking };
  const episodes: Episode[] = [];
  const turnZero: TurnZeroEnd[] = [];
  for (let start = 0; start < config.tasks.length; start += tasksPerWave) {
    const groups = await runWave(context, config.tasks.slice(start, start + tasksPerWave), start);
    const members = groups.flatMap((group) => group.members);
    const finished = members.map((episode) => toEpisode(context, episode));
    episodes.push(...finished);
    turnZero.push(...members.flatMap((episode) => turnZeroEnd(episode) ?? []));
    await hooks.onEpisodes?.(finished);
  }
  const reports = turnZeroReports(turnZero, {
    envId: config.envId,
    total: episodes.length,
    contextTokens: agent.options.contextTokens,
    countsExactly: agent.policy.countTokens !== undefined,
  });
  for (const report of reports) (hooks.onTurnZeroEnds ?? warnTurnZeroEnds)(report);
  return episodes;
}

/** The vector env as one that hands out its members' step checks; a ConfigError where it cannot. */
function stepChecksOf(vectorEnv: VectorEnv): VectorStepChecks {
  if (!canCheckStepsAt(vectorEnv)) {
    throw new ConfigError(
      'recordStepChecks checks plan steps against the envs played on, but this vector env cannot reach their checks; use createVectorEnv over envs that implement checkStep() (StepChecks), or drop recordStepChecks',
    );
  }
  return vectorEnv;
}
