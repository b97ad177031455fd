// The rollout's scheduler over one wave of tasks: it opens a group of episodes per task on the
// vector env, then turn after turn runs the plan, act and env phases for the live episodes, each
// phase batching what they need into one call, until every episode has ended.
import { createStepCheckRecorder, type ResetOptions, type TaskRef } from '@pilotrl/core';
import { chooseActions } from './act-phase';
import { playTurn } from './env-phase';
import {
  type EpisodeGroup,
  type EpisodeState,
  episodeIdOf,
  isLive,
  newTurn,
  openEpisode,
} from './episode-state';
import { writePlans } from './plan-phase';
import { endEpisode, type WaveContext } from './scheduler';

/** Plays `wave` (the tasks from `firstTaskIndex` on) to the end; the groups in task order. */
export async function runWave(
  context: WaveContext,
  wave: readonly TaskRef[],
  firstTaskIndex: number,
): Promise<EpisodeGroup[]> {
  const groups = await openGroups(context, wave, firstTaskIndex);
  const episodes = groups.flatMap((group) => group.members);
  const { maxTurns } = context.agent.options;
  for (let turn = 0; turn < maxTurns; turn += 1) {
    const live = episodes.filter(isLive);
    if (live.length === 0) break;
    for (const episode of live) episode.thisTurn = newTurn();
    await writePlans(context, live, turn);
    await chooseActions(context, live, turn);
    await playTurn(context, live, turn);
  }
  for (const episode of episodes) {
    if (isLive(episode)) endEpisode(episode, { reason: 'max_turns', turn: maxTurns - 1 });
  }
  return groups;
}

/** One group per task, its members on consecutive envs of the vector env, all reset at once. */
async function openGroups(
  { vectorEnv, config, strategies, checking }: WaveContext,
  wave: readonly TaskRef[],
  firstTaskIndex: number,
): Promise<EpisodeGroup[]> {
  const groups: EpisodeGroup[] = wave.map((task, offset) => ({
    groupId: `${config.runId}/${firstTaskIndex + offset}-${task.taskId}`,
    task,
    taskIndex: firstTaskIndex + offset,
    members: [],
  }));
  const seats = groups.flatMap((group) =>
    Array.from({ length: config.groupSize }, (_, sampleIndex) => ({ group, sampleIndex })),
  );
  // Envs beyond the wave replay the first task and are never stepped: the contract resets all envs.
  const resetOptions: ResetOptions[] = Array.from({ length: vectorEnv.size }, (_, slot) => {
    const { task } = (seats[slot] ?? seats[0]!).group;
    return { seed: task.seed, taskId: task.taskId };
  });
  const starts = await vectorEnv.reset(resetOptions);
  const episodes: EpisodeState[] = seats.map(({ group, sampleIndex }, slot) => {
    const start = starts[slot]!;
    const goal = config.goals?.[group.taskIndex] ?? start.info.task ?? group.task.description ?? '';
    const episode = openEpisode({
      group,
      sampleIndex,
      slot,
      stream: group.taskIndex * config.groupSize + sampleIndex,
      goal,
      start,
      prompts: strategies.prompt.open({ goal, observation: start }),
    });
    group.members.push(episode);
    return episode;
  });
  for (const episode of episodes) {
    const start = episode.current;
    if (start.terminated || start.truncated) {
      const error = start.info.error;
      endEpisode(
        episode,
        error === undefined
          ? { reason: 'env_done', turn: 0 }
          : { reason: 'env_error', turn: 0, envError: error },
      );
    } else if (checking !== undefined) {
      episode.stepChecks = createStepCheckRecorder(
        checking.stepChecksAt(episode.slot, 'recording step checks'),
        {
          envId: config.envId,
          episodeId: episodeIdOf(episode),
        },
      );
    }
  }
  return groups;
}
