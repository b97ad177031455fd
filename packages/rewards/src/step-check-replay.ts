// Step checks recorded for an episode that has been played without them (read from a file, or
// converted from another format): the env replays the episode's commands from its seed and checks
// the plan in force after every turn against its own state, with the bookkeeping the agent's
// rollout uses when it records them as it plays (core's `createStepCheckRecorder`: plan order, at
// most one step per turn, a revised plan resuming after the steps passed). Episodes played by the
// rollout get the same record, at no replay, from its `recordStepChecks` option.
import {
  createStepCheckRecorder,
  EnvError,
  type Episode,
  requireStepChecks,
  type StepCheckRecord,
  type TextEnv,
} from '@pilotrl/core';

/**
 * What `env`'s step checks find in `episode`. The env must be able to replay it (a fresh env of the
 * same kind and options: same seed and commands, same observations); a replay that answers with
 * other observations is an `EnvError`, and a step the env cannot check an `InvalidArgumentError`.
 */
export async function recordStepChecks(env: TextEnv, episode: Episode): Promise<StepCheckRecord> {
  const checking = requireStepChecks(env, 'recording step checks');
  const diverged = (turn: number, expected: string, got: string) =>
    new EnvError(
      `env "${env.envId}" replayed episode ${episode.id} differently at turn ${turn}: expected ${JSON.stringify(expected.slice(0, 80))}, got ${JSON.stringify(got.slice(0, 80))}; step checks need an env created with the options the episode was played with`,
    );
  const opening = await checking.reset({ seed: episode.seed, taskId: episode.taskId });
  const firstObservation = episode.turns[0]?.observation ?? episode.initialObservation;
  if (opening.observation !== firstObservation) throw diverged(0, firstObservation, opening.observation);

  const planAt = new Map(episode.planHistory.map((revision) => [revision.turn, revision.steps]));
  const recorder = createStepCheckRecorder(checking, { envId: env.envId, episodeId: episode.id });
  for (const [index, turn] of episode.turns.entries()) {
    const revised = planAt.get(turn.index);
    if (revised !== undefined) recorder.planInForce(revised);
    if (turn.action === null) continue;
    const result = await checking.step(turn.action);
    const next = episode.turns[index + 1];
    if (next !== undefined && next.observation !== result.observation) {
      throw diverged(next.index, next.observation, result.observation);
    }
    recorder.acted(turn.index);
  }
  return recorder.record();
}
