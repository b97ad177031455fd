// The env phase of a turn: every command is played in one vector-env step, each turn is recorded,
// and the episodes the turn ended are finished.
import type { StepResult } from '@pilotrl/core';
import { type EpisodeState, isLive, isRecorded } from './episode-state';
import { endEpisode, type WaveContext } from './scheduler';

export async function playTurn(
  context: WaveContext,
  live: readonly EpisodeState[],
  turn: number,
): Promise<void> {
  // A plan adopted this turn is in force for its action. A turn that goes unrecorded (its episode
  // ended before generating anything) leaves the checks as they stand, as a replay of it would.
  for (const episode of live) {
    const revision = episode.plan.history.at(-1);
    if (revision?.turn === turn && isRecorded(episode)) episode.stepChecks?.planInForce(revision.steps);
  }
  const actions: (string | null)[] = new Array(context.vectorEnv.size).fill(null);
  for (const episode of live) actions[episode.slot] = episode.thisTurn.move.action;
  const stepped = await context.vectorEnv.step(actions);
  for (const episode of live) {
    if (isRecorded(episode)) recordTurn(context, episode, stepped[episode.slot] ?? null, turn);
  }
}

function recordTurn(
  { agent, strategies }: WaveContext,
  episode: EpisodeState,
  stepped: StepResult | null,
  turn: number,
): void {
  const { thisTurn, current } = episode;
  const { formatError, move } = thisTurn;
  const result = move.action === null ? null : stepped;
  const penalty = formatError === null ? 0 : agent.options.formatError.penalty;
  episode.plan.stepsDoneByTurn.push(strategies.progress.stepsDone(episode));
  episode.turns.push({
    index: turn,
    observation: current.observation,
    admissibleActions: current.admissibleActions,
    generations: thisTurn.generations,
    thought: move.thought,
    action: move.action,
    formatError,
    envReward: result?.reward ?? 0,
    valid: result?.info.valid ?? false,
    rewards: formatError === null ? {} : { format_penalty: penalty },
  });
  if (!isLive(episode)) return;
  if (formatError !== null && agent.options.formatError.mode === 'terminate') {
    endEpisode(episode, { reason: 'format_error', turn });
    return;
  }
  if (move.action === null) {
    episode.prompts.unread(move.text, formatError, current);
    return;
  }
  if (result === null) {
    endEpisode(episode, {
      reason: 'env_error',
      turn,
      envError: `env ${episode.slot} was inactive when stepped`,
    });
    return;
  }
  episode.current = result;
  episode.stepChecks?.acted(turn);
  episode.observations.push(result.observation);
  episode.prompts.played(move.text, move.action, result);
  episode.plan.executedSteps = strategies.progress.executedAfter(episode, move.action, result.observation);
  if (result.info.error !== undefined) {
    endEpisode(episode, { reason: 'env_error', turn, envError: result.info.error });
  } else if (result.terminated || result.truncated) {
    endEpisode(episode, { reason: 'env_done', turn });
  }
}
