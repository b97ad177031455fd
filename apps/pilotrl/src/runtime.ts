// Builds what a curriculum runs on from its config: the env provider, the agent options of each
// phase, the tokenizer (trained on oracle demonstrations) and the tfjs policy.
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
import { type BackendChoice, TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { compactPromptTemplate } from './compact-template';
import { type CurriculumConfig, modelDimensions, type StageConfig } from './config';
import { type Demonstration, oracleDemonstrations } from './demonstrations';
import { type EnvProvider, envProviders } from './env-providers';
import { llmPlanProvider } from './llm-plans';
import { sha256 } from './run-dir';

export function envProviderFor(config: CurriculumConfig): EnvProvider {
  return envProviders.get(config.env.id)(config.env.options);
}

export function envOptionsFor(config: CurriculumConfig): Record<string, unknown> {
  return { ...config.env.options, maxSteps: config.env.maxSteps };
}

/** Agent options for training (sampling at the configured temperature) or evaluation. */
export function agentOptionsFor(
  config: CurriculumConfig,
  purpose: { stage?: StageConfig; provider: EnvProvider; temperature: number },
): AgentOptions {
  const { agent } = config;
  const follow = purpose.stage?.kind === 'follow';
  return {
    maxTurns: config.env.maxSteps,
    contextTokens: modelDimensions(config.policy).contextLength,
    historyTurns: agent.historyWindow,
    act: { maxTokens: agent.maxActionTokens, temperature: purpose.temperature },
    plan: { maxTokens: agent.maxPlanTokens, temperature: purpose.temperature },
    formatError: { mode: 'penalty', penalty: -agent.formatErrorPenalty },
    maxPlanSteps: agent.maxPlanSteps,
    // Stage 1 learns to follow the plan it is given, so that plan stays in force.
    revision: agent.planRevision === 'every-turn' && !follow ? { mode: 'every_turn' } : { mode: 'never' },
    actionSpace: agent.actionSpace,
    ...(agent.plan === 'steps' ? { planSteps: planStepsOf(config, purpose.provider) } : {}),
    ...(agent.prompt === 'compact'
      ? { promptTemplate: compactPromptTemplate({ listActions: agent.listActions }) }
      : {}),
    ...(agent.prompt === 'view' ? { view: purpose.provider.view ?? latestObservationView } : {}),
    planSource: follow ? followPlanSource(config, purpose.stage!, purpose.provider) : { kind: 'policy' },
  };
}

/** Stage 1's plans: the env oracle's, or a strong LLM's through its OpenAI-compatible API. */
function followPlanSource(
  config: CurriculumConfig,
  stage: StageConfig,
  provider: EnvProvider,
): AgentOptions['planSource'] {
  if (stage.kind === 'follow' && stage.planSource === 'llm') {
    const llm = config.llm!;
    const client = createChatClient({ baseUrl: llm.baseUrl, model: llm.model, apiKeyEnv: llm.apiKeyEnv });
    return { kind: 'provided', source: 'llm', provider: llmPlanProvider(client, provider.envId) };
  }
  if (config.agent.plan !== 'steps') {
    return { kind: 'provided', source: 'oracle', provider: oraclePlanProvider(provider.tasks) };
  }
  const vocabulary = planStepsOf(config, provider);
  const candidates = stage.kind === 'follow' ? stage.planCandidates : 1;
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
function planStepsOf(config: CurriculumConfig, provider: EnvProvider): PlanStepVocabulary {
  const vocabulary = provider.planSteps;
  if (vocabulary?.planOf === undefined) {
    throw new ConfigError(
      `agent.plan: steps needs a plan-step vocabulary with oracle plans in it, and env "${config.env.id}" has none; use agent.plan: free-text`,
    );
  }
  return vocabulary;
}

export function createAgent(config: CurriculumConfig, policy: Policy, options: AgentOptions): Agent {
  return config.agent.paradigm === 'adaplan'
    ? createAdaPlanAgent(policy, options)
    : createReActAgent(policy, options);
}

/** The first `count` tasks of the training split (the same every time for a given env). */
export function trainTasks(
  config: CurriculumConfig,
  provider: EnvProvider,
  count: number,
): Promise<TaskRef[]> {
  return provider.tasks.tasks(config.env.trainSplit, { offset: 0, limit: count });
}

export async function demonstrationsFor(
  config: CurriculumConfig,
  provider: EnvProvider,
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
    envOptions: envOptionsFor(config),
    ...(tokens === undefined ? {} : { tokens }),
    ...(searching ? { demonstrator: provider.demonstrator } : {}),
  });
  return { demonstrations, won, tasks: tasks.length };
}

/** A tokenizer trained on the text of oracle demonstrations (prompts and expert answers). */
export async function trainTokenizer(
  config: CurriculumConfig,
  provider: EnvProvider,
): Promise<{ tokenizer: Tokenizer; corpusHash: string }> {
  const { demonstrations } = await demonstrationsFor(config, provider, config.policy.tokenizerCorpusTasks);
  const corpus = [...new Set(demonstrations.flatMap((d) => [...d.messages.map((m) => m.content), d.reply]))];
  const tokenizer = Tokenizer.train(corpus, { vocabSize: config.policy.vocabSize });
  return { tokenizer, corpusHash: sha256(JSON.stringify(corpus)) };
}

export async function createPolicy(config: CurriculumConfig, tokenizer: Tokenizer): Promise<TfjsPolicy> {
  const dims = modelDimensions(config.policy);
  return TfjsPolicy.create({
    name: config.name,
    tokenizer,
    model: {
      dModel: dims.dModel,
      nLayers: dims.layers,
      nHeads: dims.heads,
      contextLength: dims.contextLength,
      seed: config.policy.seed,
      valueHead: config.policy.valueHead,
    },
    samplingSeed: config.seed,
    ...backendOption(config.policy.backend),
  });
}

/** The `backend` option of TfjsPolicy.create/load: absent for `auto`, so PILOTRL_TFJS_BACKEND still applies. */
export function backendOption(choice: 'auto' | BackendChoice): { backend?: BackendChoice } {
  return choice === 'auto' ? {} : { backend: choice };
}
