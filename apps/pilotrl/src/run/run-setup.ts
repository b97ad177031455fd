// Builds what a curriculum runs on from its config: the env provider, the agent options of each
// phase and the oracle's demonstrations.
import {
  type Agent,
  type AgentOptions,
  createAdaPlanAgent,
  createReActAgent,
  oraclePlanProvider,
} from '@pilotrl/agent';
import {
  ConfigError,
  latestObservationView,
  type PlanStepVocabulary,
  type Policy,
  type TaskRef,
} from '@pilotrl/core';
import { createChatClient } from '@pilotrl/llm';
import type { EnvCurriculum, StageConfig } from '../config/curriculum-config';
import { policyContextLength } from '../config/policy-config';
import type { EnvProvider } from '../plugins/registry';
import { type Demonstration, oracleDemonstrations } from '../training/demonstrations';
import { llmPlanProvider } from '../training/llm-plans';
import { compactPromptTemplate } from './compact-template';
import { type RunEnv, shareByWeight } from './run-envs';

/** The agent's revision schedule for each `agent.planRevision`. */
const REVISION_MODES: Record<EnvCurriculum['agent']['planRevision'], AgentOptions['revision']> = {
  'every-turn': { mode: 'every_turn' },
  'on-stall': { mode: 'on_stall', turns: 2 },
  never: { mode: 'never' },
};

/**
 * Agent options for training (sampling at the configured temperature) or evaluation; with
 * `oraclePlans`, an evaluation played as stage 1 plays with `planSource: oracle` (the env oracle's
 * plan given and kept in force).
 */
export function agentOptionsFor(
  config: EnvCurriculum,
  purpose: { stage?: StageConfig; oraclePlans?: boolean; provider: EnvProvider; temperature: number },
): AgentOptions {
  const { agent } = config;
  const follow = purpose.stage?.kind === 'follow' || purpose.oraclePlans === true;
  return {
    maxTurns: config.env.maxSteps,
    contextTokens: policyContextLength(config.policy),
    historyTurns: agent.historyWindow,
    act: { maxTokens: agent.maxActionTokens, temperature: purpose.temperature },
    plan: { maxTokens: agent.maxPlanTokens, temperature: purpose.temperature },
    formatError: { mode: 'penalty', penalty: -agent.formatErrorPenalty },
    maxPlanSteps: agent.maxPlanSteps,
    // Stage 1 learns to follow the plan it is given, so that plan stays in force.
    revision: follow ? { mode: 'never' } : REVISION_MODES[agent.planRevision],
    actionSpace: agent.actionSpace,
    ...(agent.plan === 'steps' ? { planSteps: planStepsOf(config, purpose.provider) } : {}),
    ...(agent.prompt === 'compact'
      ? { promptTemplate: compactPromptTemplate({ listActions: agent.listActions }) }
      : {}),
    ...(agent.prompt === 'view' ? { view: purpose.provider.view ?? latestObservationView } : {}),
    // A ReAct env of a mixture plays stage 1 without plans.
    planSource:
      follow && agent.paradigm === 'adaplan'
        ? followPlanSource(config, purpose.stage, purpose.provider)
        : { kind: 'policy' },
  };
}

/**
 * Stage 1's plans: the env oracle's, or a strong LLM's through its OpenAI-compatible API; without a
 * stage (an evaluation with the oracle's plans), the oracle's one plan.
 */
function followPlanSource(
  config: EnvCurriculum,
  stage: StageConfig | undefined,
  provider: EnvProvider,
): AgentOptions['planSource'] {
  if (stage?.kind === 'follow' && stage.planSource === 'llm') {
    const llm = config.llm!;
    const client = createChatClient({ baseUrl: llm.baseUrl, model: llm.model, apiKeyEnv: llm.apiKeyEnv });
    return { kind: 'provided', source: 'llm', provider: llmPlanProvider(client, provider.envId) };
  }
  if (config.agent.plan !== 'steps') {
    return { kind: 'provided', source: 'oracle', provider: oraclePlanProvider(provider.tasks) };
  }
  const vocabulary = planStepsOf(config, provider);
  const candidates = stage?.kind === 'follow' ? stage.planCandidates : 1;
  if (candidates > 1 && vocabulary.alternatives === undefined) {
    throw new ConfigError(
      `planCandidates: env "${config.env.id}" offers no alternative plans in its plan steps; use planCandidates: 1`,
    );
  }
  return {
    kind: 'provided',
    source: 'oracle',
    provider: oraclePlanProvider(provider.tasks, {
      planOf: vocabulary.planOf!,
      candidates,
      ...(vocabulary.alternatives === undefined
        ? {}
        : { alternatives: vocabulary.alternatives.bind(vocabulary) }),
    }),
  };
}

/** The env's plan-step vocabulary for `agent.plan: steps`, or a ConfigError saying it has none. */
function planStepsOf(config: EnvCurriculum, provider: EnvProvider): PlanStepVocabulary {
  const vocabulary = provider.planSteps;
  if (vocabulary?.planOf === undefined) {
    throw new ConfigError(
      `agent.plan: steps needs a plan-step vocabulary with oracle plans in it, and env "${config.env.id}" has none; use agent.plan: free-text`,
    );
  }
  return vocabulary;
}

export function createAgent(config: EnvCurriculum, policy: Policy, options: AgentOptions): Agent {
  return config.agent.paradigm === 'adaplan'
    ? createAdaPlanAgent(policy, options)
    : createReActAgent(policy, options);
}

/** The first `count` tasks of the training split (the same every time for a given env). */
export function trainTasks(config: EnvCurriculum, provider: EnvProvider, count: number): Promise<TaskRef[]> {
  return provider.tasks.tasks(config.env.trainSplit, { offset: 0, limit: count });
}

export async function demonstrationsFor(
  { config, provider, envOptions }: RunEnv,
  count: number,
  tokens?: Pick<Policy, 'countTokens' | 'choiceTokens'>,
): Promise<{ demonstrations: Demonstration[]; won: number; tasks: number }> {
  const tasks = await trainTasks(config, provider, count);
  const options = agentOptionsFor(config, { provider, temperature: 0 });
  const searching = config.sft?.demonstrator === 'searching';
  if (searching && provider.demonstrator === undefined) {
    throw new ConfigError(
      `sft.demonstrator: env "${provider.envId}" has no searching demonstrator; use "oracle"`,
    );
  }
  const { demonstrations, won } = await oracleDemonstrations({
    provider,
    tasks,
    paradigm: config.agent.paradigm,
    agentOptions: { ...options, planSource: { kind: 'policy' } },
    envOptions: { ...envOptions },
    ...(tokens === undefined ? {} : { tokens }),
    ...(searching ? { demonstrator: provider.demonstrator } : {}),
    alternativePlans: config.sft?.plans === 'alternatives',
  });
  return { demonstrations, won, tasks: tasks.length };
}

/**
 * The oracle's demonstrations of `count` training tasks, shared out among the envs by weight (each
 * env's first tasks, as its agent renders them), in env order.
 */
export async function runDemonstrations(
  envs: readonly RunEnv[],
  count: number,
  tokens?: Pick<Policy, 'countTokens' | 'choiceTokens'>,
): Promise<{ env: RunEnv; demonstrations: Demonstration[]; won: number; tasks: number }[]> {
  const shares = shareByWeight(count, envs);
  const played = [];
  for (const [index, env] of envs.entries()) {
    played.push({ env, ...(await demonstrationsFor(env, shares[index]!, tokens)) });
  }
  return played;
}

/** Every prompt message and reply of the oracle's demonstrations of `count` training tasks (shared out as above), each once. */
export async function demonstrationTexts(envs: readonly RunEnv[], count: number): Promise<string[]> {
  const played = await runDemonstrations(envs, count);
  const demonstrations = played.flatMap((env) => env.demonstrations);
  return [...new Set(demonstrations.flatMap((d) => [...d.messages.map((m) => m.content), d.reply]))];
}
