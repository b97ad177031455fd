// Checks that a curriculum can start, run before its run directory exists so that a mistake leaves
// nothing behind: the env accepts its options, the splits it evaluates exist, and the agent's first
// prompt fits the policy's context.
import { createVectorEnv, rollout } from '@pilotrl/agent';
import { ConfigError, type Policy } from '@pilotrl/core';
import { type EnvCurriculum, modelDimensions } from './config';
import type { EnvProvider } from './env-providers';
import { agentOptionsFor, createAgent, envOptionsFor } from './runtime';

/** The env's own error for options it does not take, and a config error for an unknown split. */
export async function checkEnvAndSplits(config: EnvCurriculum, provider: EnvProvider): Promise<void> {
  let env: ReturnType<EnvProvider['createEnv']>;
  try {
    env = provider.createEnv(envOptionsFor(config));
  } catch (error) {
    throw new ConfigError(`env.options: env "${provider.envId}" refuses them: ${(error as Error).message}`, {
      cause: error,
    });
  }
  await env.close?.();
  const splits = provider.tasks.splits();
  const unknown = config.eval.splits.find((split) => !splits.includes(split));
  if (unknown !== undefined) {
    throw new ConfigError(
      `eval.splits: env "${provider.envId}" has no split "${unknown}"; its splits are ${splits.join(', ')}`,
    );
  }
}

/** Plays the agent's first turn on the first train task and refuses a context that cannot hold its prompt. */
export async function checkFirstPromptFits(
  config: EnvCurriculum,
  provider: EnvProvider,
  policy: Policy,
): Promise<void> {
  const [task] = await provider.tasks.tasks('train', { offset: 0, limit: 1 });
  if (task === undefined) return;
  const options = { ...agentOptionsFor(config, { provider, temperature: 0 }), maxTurns: 1 };
  const vectorEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), { size: 1 });
  try {
    const [episode] = await rollout(createAgent(config, policy, options), vectorEnv, {
      envId: provider.envId,
      tasks: [task],
      runId: 'preflight',
    });
    if (episode?.metadata?.endReason === 'context_overflow') {
      throw new ConfigError(
        `policy.contextLength: ${modelDimensions(config.policy).contextLength} tokens cannot hold the agent's first prompt on a train task of "${provider.envId}"; raise policy.contextLength or shorten the prompt (agent.prompt, agent.historyWindow)`,
      );
    }
  } finally {
    await vectorEnv.close();
  }
}
