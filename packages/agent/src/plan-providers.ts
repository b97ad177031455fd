// Plan sources outside the policy, for PilotRL's first stage (learning to follow a given plan).
import {
  createRng,
  hashString,
  InvalidArgumentError,
  type Plan,
  parseOrThrow,
  planSchema,
  type TaskSource,
} from '@pilotrl/core';
import type { PlanProvider } from './agent';

/**
 * The env oracle's reference plan for each task; with `planOf` (a plan-step vocabulary's), the plan
 * of the oracle's actions in that vocabulary instead. With `candidates` above 1 and `alternatives`
 * (a vocabulary's), up to that many plans: the oracle's among other plans that reach the goal, in
 * an order drawn from the task's seed, for the policy to pick one.
 */
export function oraclePlanProvider(
  taskSource: TaskSource,
  options: {
    planOf?: (actions: readonly string[]) => Plan;
    alternatives?: (plan: Plan, input: { goal: string; observations: readonly string[] }) => Plan[];
    candidates?: number;
  } = {},
): PlanProvider {
  const oracle = taskSource.oracle;
  if (oracle === undefined) {
    throw new InvalidArgumentError(
      `task source of env "${taskSource.envId}" has no oracle; use a plan provider that does not need one`,
    );
  }
  const { planOf, alternatives, candidates = 1 } = options;
  if (!Number.isInteger(candidates) || candidates < 1) {
    throw new InvalidArgumentError(`candidates must be a positive integer, got ${candidates}`);
  }
  return async ({ task, goal, initialObservation }) => {
    const solution = await oracle.call(taskSource, task);
    const plan = planOf === undefined ? solution.plan : planOf(solution.actions);
    if (candidates === 1 || alternatives === undefined) return [plan];
    const rng = createRng(hashString(`${task.taskId}/${task.seed}/plan candidates`));
    const others = rng.shuffle(alternatives(plan, { goal, observations: [initialObservation] }));
    return rng.shuffle([plan, ...others.slice(0, candidates - 1)]);
  };
}

/** Plans given per task id, e.g. written by a user or by a strong LLM ahead of time. */
export function fixedPlanProvider(plansByTaskId: Readonly<Record<string, readonly Plan[]>>): PlanProvider {
  const checked = new Map<string, Plan[]>();
  for (const [taskId, plans] of Object.entries(plansByTaskId)) {
    checked.set(taskId, parseOrThrow(planSchema.min(1).array().min(1), plans, `plans for task "${taskId}"`));
  }
  return async ({ task }) => {
    const plans = checked.get(task.taskId);
    if (plans === undefined) {
      throw new InvalidArgumentError(`no plan was given for task "${task.taskId}"; add it to the plan map`);
    }
    return plans;
  };
}
