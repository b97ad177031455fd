// A finished episode as the rollout hands it out (core's `Episode`, metadata included), and why it
// ended at turn 0 where that points at the setup rather than at the model.
import { EPISODE_FORMAT_VERSION, type Episode } from '@pilotrl/core';
import { addCompute, generatedTokensOf } from '../search-compute';
import type { TurnZeroEnd } from '../turn-zero-ends';
import { type EpisodeState, episodeIdOf } from './episode-state';
import type { WaveContext } from './scheduler';

export function toEpisode({ agent, config, strategies }: WaveContext, episode: EpisodeState): Episode {
  const { group, turns, counts, end } = episode;
  const last = episode.current;
  const formatPenalty = turns.reduce((sum, turn) => sum + (turn.rewards.format_penalty ?? 0), 0);
  const metadata: Record<string, unknown> = {
    endReason: end?.reason ?? null,
    policy: agent.policy.name,
    actionSpace: agent.options.actionSpace,
    promptTemplate: strategies.prompt.id,
    samplingSeed: config.seed,
    contextCuts: counts.contextCuts,
    omittedTurnsMax: counts.omittedTurnsMax,
    actionMatches: counts.actionMatches,
    finalObservation: last.observation,
  };
  if (agent.paradigm === 'adaplan') {
    metadata.fixedStepEdits = counts.fixedStepEdits;
    metadata.stepsDoneByTurn = episode.plan.stepsDoneByTurn;
  }
  if (agent.options.planSteps !== undefined) {
    metadata.planKind = 'steps';
    metadata.executedSteps = episode.plan.executedSteps;
    if (counts.emptyPlanVocabularies > 0) metadata.emptyPlanVocabularies = counts.emptyPlanVocabularies;
  }
  if (end?.envError !== undefined) metadata.envError = end.envError;
  const compute = { ...counts.compute };
  addCompute(compute, {
    generatedTokens: turns.reduce(
      (sum, turn) =>
        sum + turn.generations.reduce((inner, g) => inner + generatedTokensOf(g, strategies.count), 0),
      0,
    ),
    envSteps: turns.filter((turn) => turn.action !== null).length,
  });
  metadata.compute = compute;
  if (config.search !== undefined) {
    metadata.search = { kind: config.search.kind, overriddenTurns: counts.searchOverrides };
  }
  const taskType = last.info.taskType ?? group.task.taskType;
  const finished = end?.reason === 'env_done' && last.terminated;
  return {
    formatVersion: EPISODE_FORMAT_VERSION,
    id: episodeIdOf(episode),
    envId: config.envId,
    taskId: group.task.taskId,
    split: group.task.split,
    seed: group.task.seed,
    groupId: group.groupId,
    sampleIndex: episode.sampleIndex,
    paradigm: agent.paradigm,
    task: episode.goal,
    ...(taskType === undefined ? {} : { taskType }),
    initialObservation: episode.initialObservation,
    turns,
    planHistory: episode.plan.history,
    won: last.info.won,
    terminated: finished,
    truncated: !finished,
    envReturn: turns.reduce((sum, turn) => sum + turn.envReward, 0),
    rewardComponents: { format_penalty: formatPenalty },
    // An episode over before its first turn was checked against no plan.
    ...(config.recordStepChecks
      ? { stepChecks: episode.stepChecks?.record() ?? { passed: [], planSteps: 0 } }
      : {}),
    metadata,
  };
}

/** Why `episode` ended at turn 0, where that points at the setup (the prompt, the env). */
export function turnZeroEnd(episode: EpisodeState): TurnZeroEnd | undefined {
  const { end } = episode;
  if (end === null || end.turn !== 0) return undefined;
  const cause = end.reason;
  if (cause !== 'context_overflow' && cause !== 'no_actions' && cause !== 'env_error') return undefined;
  return {
    cause,
    openingChars: episode.initialObservation.length,
    ...(end.prompt === undefined ? {} : { prompt: end.prompt }),
    ...(end.envError === undefined ? {} : { envError: end.envError }),
  };
}
