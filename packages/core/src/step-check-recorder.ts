// The bookkeeping of step checks over one episode, shared by whoever plays the episode (the agent's
// rollout, as it goes) and whoever replays a finished one: the plan in force, the check of its next
// step, and the steps passed. The checks run in plan order: a step's check starts when the step
// before it passed (or when its plan came into force), so a step passes at the turn that carried it
// out. One command carries out one step: at most one step passes per turn, so a plan that repeats a
// step whose fact already holds (ALFWorld: "heat apple" twice) cannot collect it twice for one
// command. A revised plan keeps the count of steps passed: its leading steps are the ones already
// done (as the agent loop keeps them fixed), and checking resumes at the first step after them.
import { InvalidArgumentError } from './errors';
import type { StepCheck, StepCheckRecord, StepChecks, StepPass } from './step-checks';

/** Step checks of one episode, fed in the order it is played. */
export interface StepCheckRecorder {
  /** `plan` comes into force before this turn's action; its next step's check starts now. */
  planInForce(plan: readonly string[]): void;
  /** The action of `turn` was played; a check that passed records its step and starts the next. */
  acted(turn: number): void;
  /** What the checks found so far. */
  record(): StepCheckRecord;
}

/**
 * A recorder over `checks`, the step checks of the env the episode is played on. A step the env
 * cannot check is an `InvalidArgumentError` naming `where.envId` and `where.episodeId`.
 */
export function createStepCheckRecorder(
  checks: StepChecks,
  where: { envId: string; episodeId: string },
): StepCheckRecorder {
  const passed: StepPass[] = [];
  let plan: readonly string[] = [];
  let check: StepCheck | undefined;
  const begin = (): StepCheck | undefined => {
    const step = plan[passed.length];
    if (step === undefined) return undefined;
    const reason = checks.cannotCheckStep(step);
    if (reason !== undefined) {
      throw new InvalidArgumentError(
        `env "${where.envId}" cannot check step ${passed.length + 1} of the plan of episode ${where.episodeId}: ${reason}; plans whose steps are checked must be written in the env's plan-step vocabulary`,
      );
    }
    return checks.checkStep(step);
  };
  return {
    planInForce(revised) {
      plan = revised;
      check = begin();
    },
    acted(turn) {
      if (!check?.passed()) return;
      passed.push({ step: plan[passed.length]!, position: passed.length, turn });
      check = begin();
    },
    record: () => ({ passed: [...passed], planSteps: plan.length }),
  };
}
