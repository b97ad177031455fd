// Step checks: an optional env capability for rewarding plans by what they achieve. An env that
// offers it can tell, from its own state rather than from text, whether a plan step has been
// carried out (ALFWorld: the object is held, in the receptacle, heated, the lamp is on). A check
// starts when its step becomes the next one of the plan and passes when the step's postcondition
// becomes true, so a fact that already held does not count, and the turn it passes at is the turn
// the step was carried out.
import { z } from 'zod';
import type { TextEnv } from './env';
import { InvalidArgumentError } from './errors';

/** One step's check, started against the env's state at the time it was made. */
export interface StepCheck {
  /** Whether the step's postcondition has become true since the check started. */
  passed(): boolean;
}

/** The capability, offered by an env instance in the middle of an episode. */
export interface StepChecks {
  /**
   * Why this env cannot check `step`, decided from the step's text alone (e.g. it is not in the
   * env's plan-step vocabulary); undefined when it can.
   */
  cannotCheckStep(step: string): string | undefined;
  /** Starts checking `step` against this env's state now; throws for a step it cannot check. */
  checkStep(step: string): StepCheck;
}

/** An env that can check plan steps against its state. */
export type CheckingEnv = TextEnv & StepChecks;

/** Whether `env` offers step checks. */
export function canCheckSteps(env: TextEnv): env is CheckingEnv {
  const candidate = env as Partial<StepChecks>;
  return typeof candidate.checkStep === 'function' && typeof candidate.cannotCheckStep === 'function';
}

/** A batch of envs whose members can check plan steps, e.g. a vector env over checking envs. */
export interface VectorStepChecks {
  /**
   * The step checks of the env in slot `index`, in its current episode; an `InvalidArgumentError`
   * naming `purpose` (as `requireStepChecks` does) when that env has none.
   */
  stepChecksAt(index: number, purpose: string): StepChecks;
}

/** Whether a vector env offers the step checks of its members. */
export function canCheckStepsAt<V extends object>(vectorEnv: V): vectorEnv is V & VectorStepChecks {
  return typeof (vectorEnv as Partial<VectorStepChecks>).stepChecksAt === 'function';
}

/** `env` as a checking env, or an error that names the env and what to do instead. */
export function requireStepChecks(env: TextEnv, purpose: string): CheckingEnv {
  if (!canCheckSteps(env)) {
    throw new InvalidArgumentError(
      `env "${env.envId}" cannot check plan steps against its state, which ${purpose} needs; use an env that implements checkStep() (see StepChecks in @pilotrl/core) or drop ${purpose}`,
    );
  }
  return env;
}

/** A plan step whose check passed: which step, of which plan, after which turn's action. */
export const stepPassSchema = z.object({
  step: z.string(),
  /** The step's position in the plan in force when it passed (0-based). */
  position: z.number().int().nonnegative(),
  /** The turn whose action made the check pass. */
  turn: z.number().int().nonnegative(),
});
export type StepPass = z.infer<typeof stepPassSchema>;

/**
 * What the env's checks found in one episode: the steps that passed, in order, and how many steps
 * the last plan in force had (the steps that could have passed).
 */
export const stepCheckRecordSchema = z.object({
  passed: z.array(stepPassSchema),
  planSteps: z.number().int().nonnegative(),
});
export type StepCheckRecord = z.infer<typeof stepCheckRecordSchema>;
