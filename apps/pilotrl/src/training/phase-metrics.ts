// What a training iteration records of its episodes: their statistics under standard metric
// names, the light copy the episode log keeps of each, and why an update changed nothing.
import { type Episode, mean } from '@pilotrl/core';

/** Episode statistics under standard metric names. */
export function episodeMetrics(episodes: readonly Episode[]): Record<string, number> {
  const turns = episodes.flatMap((e) => e.turns);
  const components = [...new Set(episodes.flatMap((e) => Object.keys(e.rewardComponents)))].sort();
  return {
    'charts/success_rate': mean(episodes.map((e) => (e.won ? 1 : 0))),
    'charts/episodic_return': mean(episodes.map((e) => e.reward ?? e.envReturn)),
    'charts/episode_length': mean(episodes.map((e) => e.turns.length)),
    'charts/format_error_rate':
      turns.length === 0 ? 0 : turns.filter((t) => t.formatError !== null).length / turns.length,
    'charts/invalid_action_rate':
      turns.length === 0 ? 0 : turns.filter((t) => !t.valid).length / turns.length,
    ...Object.fromEntries(
      components.map((c) => [`rewards/${c}`, mean(episodes.map((e) => e.rewardComponents[c] ?? 0))]),
    ),
    ...stepCheckMetrics(episodes),
  };
}

/**
 * Where the env checked plan steps: the mean number of steps passed per episode, and the share of
 * the steps of the plans in force at the end that passed (a plan revised shorter than the steps
 * already passed counts as fully passed).
 */
function stepCheckMetrics(episodes: readonly Episode[]): Record<string, number> {
  const records = episodes.flatMap((e) => (e.stepChecks === undefined ? [] : [e.stepChecks]));
  if (records.length === 0) return {};
  const passed = records.reduce((sum, record) => sum + record.passed.length, 0);
  const planned = records.reduce((sum, record) => sum + Math.max(record.planSteps, record.passed.length), 0);
  return {
    'charts/plan_steps_passed': passed / records.length,
    'charts/plan_step_pass_rate': planned === 0 ? 0 : passed / planned,
  };
}

/** A copy of an episode without its token arrays, for the human-readable episode log. */
export function lightEpisode(episode: Episode): Episode {
  return {
    ...episode,
    turns: episode.turns.map((turn) => ({
      ...turn,
      generations: turn.generations.map(({ allowedTokenIds: _allowed, ...g }) => ({
        ...g,
        tokenIds: [],
        lossMask: [],
        logprobs: [],
      })),
    })),
  };
}

/**
 * Why an iteration's policy-gradient update changed nothing (`charts/updated` 0), in words for the
 * progress line and the metrics record; undefined where it updated or the phase has no such update.
 */
export function noUpdateNote(metrics: Readonly<Record<string, number>>): string | undefined {
  if (metrics['charts/updated'] !== 0) return undefined;
  const groups = metrics['charts/groups'] ?? 0;
  const flat = metrics['charts/zero_variance_groups'] ?? 0;
  if (groups > 0 && flat === groups) {
    return `no update: every group had zero reward variance (${flat} of ${groups} groups skipped)`;
  }
  return `no update: no generated tokens to train on (${flat} of ${groups} groups had zero reward variance)`;
}
