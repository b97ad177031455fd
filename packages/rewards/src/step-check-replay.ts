// Step checks recorded for an episode that has been played: the env replays the episode's commands
// from its seed and checks the plan in force after every turn, against its own state. The checks
// run in plan order: a step's check starts when the step before it passed (or when its plan came
// into force), so a step passes at the turn that carried it out. One command carries out one step:
// at most one step passes per turn, so a plan that repeats a step whose fact already holds (ALFWorld:
// "heat apple" twice) cannot collect it twice for one command. A revised plan keeps the count of
// steps passed: its leading steps are the ones already done (as the agent loop keeps them fixed),
// and checking resumes at the first step after them.
import {
  EnvError,
  type Episode,
  InvalidArgumentError,
  requireStepChecks,
  type StepCheck,
  type StepCheckRecord,
  type StepPass,
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
  const passed: StepPass[] = [];
  let plan: readonly string[] = [];
  let check: StepCheck | undefined;
  const begin = (): StepCheck | undefined => {
    const step = plan[passed.length];
    if (step === undefined) return undefined;
    const reason = checking.cannotCheckStep(step);
    if (reason !== undefined) {
      throw new InvalidArgumentError(
        `env "${env.envId}" cannot check step ${passed.length + 1} of the plan of episode ${episode.id}: ${reason}; plans whose steps are checked must be written in the env's plan-step vocabulary`,
      );
    }
    return checking.checkStep(step);
  };
  for (const [index, turn] of episode.turns.entries()) {
    const revised = planAt.get(turn.index);
    if (revised !== undefined) {
      plan = revised;
      check = begin();
    }
    if (turn.action === null) continue;
    const result = await checking.step(turn.action);
    const next = episode.turns[index + 1];
    if (next !== undefined && next.observation !== result.observation) {
      throw diverged(next.index, next.observation, result.observation);
    }
    if (check?.passed()) {
      passed.push({ step: plan[passed.length]!, position: passed.length, turn: turn.index });
      check = begin();
    }
  }
  return { passed, planSteps: plan.length };
}
