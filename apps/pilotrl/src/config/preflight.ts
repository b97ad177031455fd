// Checks that a curriculum can start, run before its run directory exists so that a mistake leaves
// nothing behind: the env accepts its options, the splits it evaluates exist, it can check the plan
// steps a `step_pass` reward pays for, and the agent's first prompt fits the policy's context.
import { createVectorEnv, rollout } from '@pilotrl/agent';
import { ConfigError, canCheckSteps, type Policy, type TextEnv } from '@pilotrl/core';
import type { EnvProvider } from '../plugins/registry';
import type { RunEnv } from '../run/run-envs';
import { agentOptionsFor, createAgent } from '../run/run-setup';
import type { EnvCurriculum } from './curriculum-config';
import { policyContextLength } from './policy-config';

/** The env's own error for options it does not take, and a config error for an unknown split. */
export async function checkEnvAndSplits(runEnv: RunEnv): Promise<void> {
  const { config, provider } = runEnv;
  let env: ReturnType<EnvProvider['createEnv']>;
  try {
    env = runEnv.createEnv();
  } catch (error) {
    throw new ConfigError(`env.options: env "${provider.envId}" refuses them: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    await checkStepChecks(config, provider, env);
  } finally {
    await env.close?.();
  }
  const splits = provider.tasks.splits();
  const unknown = config.eval.splits.find((split) => !splits.includes(split));
  if (unknown !== undefined) {
    throw new ConfigError(
      `eval.splits: env "${provider.envId}" has no split "${unknown}"; its splits are ${splits.join(', ')}`,
    );
  }
}

/**
 * Where a stage pays `step_pass` and this env plans: the env must offer step checks, and check
 * every step its plan-step vocabulary offers on the first train task.
 */
async function checkStepChecks(config: EnvCurriculum, provider: EnvProvider, env: TextEnv): Promise<void> {
  const index = config.stages.findIndex((stage) => 'step_pass' in stage.rewards);
  if (index < 0 || config.agent.paradigm !== 'adaplan') return;
  const where = `stages[${index}].rewards.step_pass`;
  if (!canCheckSteps(env)) {
    throw new ConfigError(
      `${where}: env "${provider.envId}" cannot check plan steps against its state (it has no step checks); drop step_pass for it, or use an env that has them (alfworld)`,
    );
  }
  const [task] = await provider.tasks.tasks(config.env.trainSplit, { offset: 0, limit: 1 });
  if (task === undefined || provider.planSteps === undefined) return;
  const opening = await env.reset({ seed: task.seed, taskId: task.taskId });
  const steps = provider.planSteps.steps({
    goal: opening.info.task ?? task.description ?? '',
    observations: [opening.observation],
  });
  for (const step of steps) {
    const reason = env.cannotCheckStep(step);
    if (reason !== undefined) {
      throw new ConfigError(
        `${where}: env "${provider.envId}" cannot check the plan step "${step}" of its own vocabulary: ${reason}`,
      );
    }
  }
}

/** Plays the agent's first turn on the first train task and refuses a context that cannot hold its prompt. */
export async function checkFirstPromptFits(runEnv: RunEnv, policy: Policy): Promise<void> {
  const { config, provider } = runEnv;
  const [task] = await provider.tasks.tasks('train', { offset: 0, limit: 1 });
  if (task === undefined) return;
  const options = { ...agentOptionsFor(config, { provider, temperature: 0 }), maxTurns: 1 };
  const vectorEnv = createVectorEnv(runEnv.createEnv, { size: 1 });
  try {
    const [episode] = await rollout(
      createAgent(config, policy, options),
      vectorEnv,
      { envId: provider.envId, tasks: [task], runId: 'preflight' },
      // The overflow is the error below; the stages and evaluations report other turn-0 ends.
      { onTurnZeroEnds: () => {} },
    );
    if (episode?.metadata?.endReason === 'context_overflow') {
      throw new ConfigError(
        `policy.contextLength: ${policyContextLength(config.policy)} tokens cannot hold the agent's first prompt on a train task of "${provider.envId}"; raise policy.contextLength or shorten the prompt (agent.prompt, agent.historyWindow)`,
      );
    }
  } finally {
    await vectorEnv.close();
  }
}

/** `eval.oraclePlan` needs an AdaPlan agent and an env oracle to give it plans. */
export function checkOraclePlans(envs: readonly Pick<RunEnv, 'id' | 'config' | 'provider'>[]): void {
  const planned = envs.filter((env) => env.config.agent.paradigm === 'adaplan');
  if (planned.length === 0) {
    throw new ConfigError(
      "eval.oraclePlan gives an AdaPlan agent the oracle's plan, and this run's agents are ReAct; set agent.paradigm: adaplan or drop eval.oraclePlan",
    );
  }
  const unplanned = planned.find((env) => env.provider.tasks.oracle === undefined);
  if (unplanned !== undefined) {
    throw new ConfigError(
      `eval.oraclePlan: env "${unplanned.id}" has no oracle to give plans; drop eval.oraclePlan`,
    );
  }
}
