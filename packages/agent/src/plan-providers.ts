// Plan sources outside the policy, for PilotRL's first stage (learning to follow a given plan).
import { InvalidArgumentError, type Plan, parseOrThrow, planSchema, type TaskSource } from '@pilotrl/core';
import type { PlanProvider } from './agent';

/**
 * The env oracle's reference plan for each task; with `planOf` (a plan-step vocabulary's), the plan
 * of the oracle's actions in that vocabulary instead.
 */
export function oraclePlanProvider(
  taskSource: TaskSource,
  options: { planOf?: (actions: readonly string[]) => Plan } = {},
): PlanProvider {
  const oracle = taskSource.oracle;
  if (oracle === undefined) {
    throw new InvalidArgumentError(
      `task source of env "${taskSource.envId}" has no oracle; use a plan provider that does not need one`,
    );
  }
  const { planOf } = options;
  return async ({ task }) => {
    const solution = await oracle.call(taskSource, task);
    return [planOf === undefined ? solution.plan : planOf(solution.actions)];
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
