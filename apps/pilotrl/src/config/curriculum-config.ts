// The curriculum config: one strict zod schema for a whole run (env, policy, agent, SFT warm start,
// the three PilotRL stages, eval, checkpoints), loaded from YAML or JSON. Every object is strict, so
// a misspelt key is an error naming the key and the keys allowed there.
import { readFileSync, statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import {
  ConfigError,
  describeIssues,
  type EstimatorRequirement,
  printable,
  type RewardRequirement,
} from '@pilotrl/core';
import { advantageEstimators } from '@pilotrl/optim';
import { judgeRegistry, rewardRegistry } from '@pilotrl/rewards';
import { parseDocument, Parser as YamlParser } from 'yaml';
import { z } from 'zod';
import { loadConfigPlugins } from '../plugins/load';
import { ADD_ENV_HINT, envProviders } from '../plugins/registry';
import {
  type PolicyConfig,
  type PolicyConfigInput,
  policyContextLength,
  policyProblems,
  policySectionSchema,
} from './policy-config';
import { episodeMemoryProblems, keyLimits } from './resource-bounds';
import { count, seed, strict } from './schema-parts';

export { modelDimensions, modelSizes } from '../policies/tfjs-backend';
export type { PolicyConfig, PolicyConfigInput };

const positiveInt = z.number().int().positive();

/** An id of a registered env: a built-in one, or one of a loaded plug-in. */
const envId = z
  .string()
  .min(1)
  .refine((id) => envProviders.has(id), {
    error: (issue) =>
      `unknown env "${printable(String(issue.input), 40)}"; known: ${envProviders.ids().join(', ')}. ${ADD_ENV_HINT}`,
  });

export const envConfigSchema = strict({
  /** Registry id of the env (`alfworld` is the built-in generator). */
  id: envId.default('alfworld'),
  /** Env-specific options, validated by the env's own factory. */
  options: z.record(z.string(), z.unknown()).default({}),
  /** Split the training tasks are drawn from. */
  trainSplit: z.string().min(1).default('train'),
  /** Step limit per episode. */
  maxSteps: count(keyLimits.maxSteps).default(30),
});

export const agentConfigSchema = strict({
  paradigm: z.enum(['adaplan', 'react']).default('adaplan'),
  /**
   * `env`: the env's own prompt template; `compact`: the same conversation in few tokens, for small
   * models; `view`: one prompt rebuilt every turn from the env's state view (ALFWorld: goal, held
   * object, receptacles visited, last command and answer; other envs: goal and latest observation).
   */
  prompt: z.enum(['env', 'compact', 'view']).default('env'),
  /**
   * `free-text`: the policy writes thought and action, unreadable answers are format errors;
   * `choice`: it picks one of the admissible commands by constrained decoding (never malformed).
   */
  actionSpace: z.enum(['free-text', 'choice']).default('free-text'),
  /**
   * AdaPlan's plans: `free-text` (the policy writes `Step N: ...` lines), or `steps`: each step is
   * chosen from the env's plan-step vocabulary through constrained choices, so a plan always parses
   * and its executed steps are counted from the actions (needs `actionSpace: choice`; ALFWorld has one).
   */
  plan: z.enum(['free-text', 'steps']).default('free-text'),
  /** Compact prompt only: list the admissible commands in every message (the env template always does). */
  listActions: z.boolean().default(true),
  /**
   * AdaPlan: when the unexecuted part of the plan is rewritten (never in a `follow` stage, whose
   * plans are given): `every-turn`; `on-stall`, when the env contradicts the plan in force (the last
   * command refused, every step carried out with the episode going on, or two turns without a step
   * done); or `never`.
   */
  planRevision: z.enum(['every-turn', 'on-stall', 'never']).default('every-turn'),
  /** Previous (action, observation) pairs kept in the prompt. */
  historyWindow: z.number().int().nonnegative().default(2),
  /** Penalty added to the reward of an episode per malformed turn. */
  formatErrorPenalty: z.number().min(0).default(0.1),
  temperature: z.number().min(0).default(1),
  maxPlanTokens: positiveInt.default(96),
  /** The most steps a plan may have (a longer free-text plan is a format error; plan steps stop there). */
  maxPlanSteps: positiveInt.default(20),
  maxActionTokens: positiveInt.default(32),
});

export type AgentConfig = z.output<typeof agentConfigSchema>;

/** The agent settings one env of a mixture changes, all optional: the others are the top-level `agent`'s. */
const agentOverrideSchema = strict(
  Object.fromEntries(
    Object.entries(agentConfigSchema.shape).map(([key, field]) => [
      key,
      (field instanceof z.ZodDefault ? field.unwrap() : field).optional(),
    ]),
  ),
) as unknown as z.ZodType<Partial<AgentConfig>, Partial<z.input<typeof agentConfigSchema>>>;

/** One env of a mixture: the single-env fields (the id required), its weight and its agent settings. */
export const mixtureEnvSchema = strict({
  /** Registry id of the env; each env appears once. */
  id: envId,
  /** Share of the training tasks, demonstrations and tokenizer corpus (relative to the others' weights). */
  weight: z
    .number()
    .refine(Number.isFinite, 'must be finite')
    .refine((weight) => weight > 0, { error: (issue) => `must be above 0 (got ${issue.input})` }),
  options: envConfigSchema.shape.options,
  trainSplit: envConfigSchema.shape.trainSplit,
  maxSteps: envConfigSchema.shape.maxSteps,
  /** Agent settings for this env only (e.g. `paradigm: react` where the env has no plan steps). */
  agent: agentOverrideSchema.optional(),
});

/** Several envs trained at once, as the paper trains one policy on its mixture of envs. */
export const envMixtureSchema = strict({
  mixture: z
    .array(mixtureEnvSchema)
    .min(2, 'a mixture needs at least two envs; for one, give env: { id, ... }')
    .superRefine((envs, context) => {
      envs.forEach((env, index) => {
        if (envs.findIndex((other) => other.id === env.id) < index) {
          context.addIssue({
            code: 'custom',
            path: [index, 'id'],
            message: `env "${env.id}" appears twice; give each env once, with the sum of the weights`,
          });
        }
      });
    }),
});

export type EnvConfig = z.output<typeof envConfigSchema>;
export type EnvMixture = z.output<typeof envMixtureSchema>;
type EnvSectionInput = z.input<typeof envConfigSchema> | z.input<typeof envMixtureSchema>;

/**
 * `env`: one env (`{ id, options, trainSplit, maxSteps }`), or `{ mixture: [...] }`. A mapping with a
 * `mixture` key is read as a mixture, anything else as one env, so each form reports its own errors.
 */
const envSectionSchema = z
  .custom<EnvSectionInput>(() => true)
  .transform((value, context) => {
    const mixture = typeof value === 'object' && value !== null && Object.hasOwn(value, 'mixture');
    const result = (mixture ? envMixtureSchema : envConfigSchema).safeParse(value);
    if (result.success) return result.data as EnvConfig | EnvMixture;
    for (const issue of result.error.issues) {
      context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
    return z.NEVER;
  });

export const isMixture = (env: EnvConfig | EnvMixture): env is EnvMixture => 'mixture' in env;

export const sftConfigSchema = strict({
  /** Oracle demonstrations generated from train tasks. */
  demonstrations: count(keyLimits.demonstrations),
  /**
   * Who plays them: `oracle` (the oracle's own solution: it walks straight to objects it knows the
   * place of) or `searching` (the env's demonstrator carries the oracle's plan out from what an agent
   * sees, looking in likely places first; the oracle's solution where it cannot).
   */
  demonstrator: z.enum(['oracle', 'searching']).default('oracle'),
  /**
   * The plans the searching demonstrator carries out: `oracle` (the oracle's, always) or
   * `alternatives` (per task, one drawn among the oracle's and the plan-step vocabulary's
   * alternatives to it, so that the plan, not the task alone, tells the act policy where to go).
   */
  plans: z.enum(['oracle', 'alternatives']).default('oracle'),
  steps: count(keyLimits.sftSteps),
  batchSize: count(keyLimits.batchSize).default(32),
  learningRate: z.number().positive(),
  /** SFT steps per logged iteration (and per progress tick and checkpoint unit). */
  stepsPerIteration: positiveInt.default(25),
  /** Linear warmup steps before the cosine decay to 10% of the learning rate. */
  warmupSteps: z.number().int().nonnegative().default(20),
}).superRefine((sft, context) => {
  if (sft.plans === 'alternatives' && sft.demonstrator !== 'searching') {
    context.addIssue({
      code: 'custom',
      path: ['plans'],
      message: 'plans: alternatives needs demonstrator: searching (the oracle plays its own plan only)',
    });
  }
});

export const lossConfigSchema = strict({
  clipLow: z.number().positive().default(0.2),
  clipHigh: z.number().positive().default(0.2),
  /** Dual-clip bound for negative advantages (null: off). */
  dualClip: z.number().gt(1).nullable().default(3),
  aggregation: z.enum(['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean']).default('token-mean'),
  klCoef: z.number().min(0).default(0),
  klEstimator: z.enum(['k1', 'k3']).default('k3'),
  entropyCoef: z.number().min(0).default(0),
});

/**
 * Reward components by name with their weights; names are the ids of `rewardRegistry` of
 * `@pilotrl/rewards`, or of a plug-in's rewards (`plan_quality`
 * is the judge score scaled to [0, 1]). `step_pass` and `loop_penalty` are paid turn by turn, and the
 * weight is the amount: `step_pass: 0.2` pays 0.2 at the turn each plan step's env check passes,
 * `loop_penalty: 0.1` costs 0.1 at each turn that repeats a command from the same state.
 */
const rewardWeights = z
  .record(z.string().min(1), z.number().refine(Number.isFinite, 'must be finite'))
  .refine((weights) => Object.keys(weights).length > 0, 'needs at least one reward component');

export const expertIterationConfigSchema = strict({
  /** SFT steps per iteration on what was kept. */
  sftSteps: count(keyLimits.sftSteps).default(48),
  batchSize: count(keyLimits.batchSize).default(32),
  /** Share of the SFT batches drawn from the kept steps; the rest come from the `sft` demonstrations. */
  mix: z.number().min(0).max(1).default(0.8),
  /** Lost groups learn the goal they did reach, where the env can name it (ALFWorld). */
  hindsight: z.boolean().default(true),
});

const stageBase = {
  name: z.string().min(1).optional(),
  /**
   * `policy-gradient`: rollouts, rewards, advantages (`estimator`) and a PPO-style update;
   * `expert-iteration`: rollouts, then SFT on the episodes the stage's reward prefers (as played,
   * weighted by how far each beats the others of its task) and the lost groups' hindsight goals,
   * mixed with demonstrations (STaR-style self-improvement; `expertIteration`).
   */
  algorithm: z.enum(['policy-gradient', 'expert-iteration']).default('policy-gradient'),
  expertIteration: expertIterationConfigSchema.default(expertIterationConfigSchema.parse({})),
  iterations: count(keyLimits.iterations),
  tasksPerIteration: count(keyLimits.tasksPerIteration),
  groupSize: count(keyLimits.groupSize),
  /**
   * Advantages, by the id of a registered estimator: group-relative (`grpo`, the paper's; `rloo`),
   * `reinforce++`, `turn-level`, `gae` (needs policy.valueHead), or one a plug-in offers.
   */
  estimator: z
    .string()
    .min(1)
    .refine((id) => advantageEstimators.has(id), {
      error: (issue) =>
        `unknown estimator "${printable(String(issue.input), 40)}"; known: ${advantageEstimators.ids().join(', ')}. One published on its own: name its package under plugins: in the config`,
    })
    .default('grpo'),
  /** The estimator's own options (e.g. grpo's `normalizeStd`), checked with its schema. */
  estimatorOptions: z.record(z.string(), z.unknown()).default({}),
  loss: lossConfigSchema.default(lossConfigSchema.parse({})),
  learningRate: z.number().positive(),
  gradClipNorm: z.number().positive().default(1),
  epochs: count(keyLimits.epochs).default(1),
  minibatches: positiveInt.default(1),
  rewards: rewardWeights,
  /** Overlong penalty (DAPO): completions within `buffer` tokens of the limit lose up to `penalty`. */
  overlongBuffer: z.number().int().nonnegative().default(8),
};

export const stageConfigSchema = z.discriminatedUnion('kind', [
  strict({
    kind: z.literal('follow'),
    ...stageBase,
    /** Who writes the plan the policy follows. */
    planSource: z.enum(['oracle', 'llm']).default('oracle'),
    /**
     * Plans offered per task (oracle plans in the env's plan steps): the oracle's among other plans
     * that reach the goal, for the policy to pick one and follow it. 1 gives the oracle's alone.
     */
    planCandidates: count(keyLimits.planCandidates).default(1),
  }),
  strict({
    kind: z.literal('plan'),
    ...stageBase,
    /**
     * Which judge scores plans, by the id of a registered one: `reference` (deterministic), `llm`
     * (the top-level `llm` section's model), or one a plug-in offers.
     */
    judge: z
      .string()
      .min(1)
      .refine((id) => judgeRegistry.has(id), {
        error: (issue) =>
          `unknown judge "${printable(String(issue.input), 40)}"; known: ${judgeRegistry.ids().join(', ')}`,
      })
      .default('reference'),
  }),
  strict({ kind: z.literal('joint'), ...stageBase }),
]);

export const llmConfigSchema = strict({
  baseUrl: z.url(),
  model: z.string().min(1),
  /** Name of the environment variable holding the API key (never the key itself). */
  apiKeyEnv: z.string().min(1).default('OPENAI_API_KEY'),
});

export const evalConfigSchema = strict({
  splits: z.array(z.string().min(1)).min(1).default(['valid_seen', 'valid_unseen']),
  /** Episodes per split. */
  episodes: count(keyLimits.evalEpisodes).default(50),
  /** Evaluate every this many iterations of each stage, and at the end of each stage. */
  every: positiveInt.default(10),
  temperature: z.number().min(0).default(0),
  /**
   * Also play each split with the env oracle's plan given to the AdaPlan agent and kept in force (as
   * stage 1 plays with `planSource: oracle`): the act policy's ceiling, in each record's `oraclePlan`.
   */
  oraclePlan: z.boolean().default(false),
});

/** A threshold above 0 and at most `max`. */
const threshold = (max: number) =>
  z
    .number()
    .refine(Number.isFinite, 'must be finite')
    .refine((value) => value > 0 && value <= max, {
      error: (issue) => `must be above 0 and at most ${max} (got ${issue.input})`,
    });

/**
 * The reward-hacking watch (hacking-watch.ts): at every evaluation of a stage, did the training
 * reward or the plan judge's score rise while held-out success (or the outcome) did not?
 */
export const watchConfigSchema = strict({
  /** Off: no `watch/*` metrics, progress flag or report callout. */
  enabled: z.boolean().default(true),
  /** Evaluations a verdict spans, the latest included; it never reaches before the phase's start. */
  window: count(1000, 2).default(3),
  /** The training reward has risen when its fitted rise over the window is at least this (reward units) and beyond its noise. */
  minRewardRise: threshold(1000).default(0.05),
  /** The plan judge's score (1-5) has risen when its fitted rise is at least this many points and beyond its noise. */
  minJudgeRise: threshold(4).default(0.25),
  /** Success (held-out, or the training outcome) has risen when it gained at least this, beyond its noise. */
  minSuccessRise: threshold(1).default(0.05),
});
export type WatchConfig = z.output<typeof watchConfigSchema>;

/**
 * What each estimator requirement asks of a stage and its config, and the key and words of the
 * error when it is not met.
 */
const estimatorRequirements: Record<
  EstimatorRequirement,
  (
    stage: z.output<typeof stageConfigSchema>,
    config: { policy: PolicyConfig },
  ) => { key: string; message: string } | undefined
> = {
  groups: (stage) =>
    stage.groupSize < 2
      ? { key: 'groupSize', message: 'compares samples in a group; needs groupSize >= 2' }
      : undefined,
  valueHead: (_stage, config) =>
    config.policy.valueHead
      ? undefined
      : { key: 'estimator', message: 'needs a value head; set policy.valueHead: true' },
};

/** The agents of a curriculum's envs, each with the prefix that names its env in a mixture's errors. */
type EnvAgents = readonly { agent: z.output<typeof agentConfigSchema>; of: string }[];

/** What each reward requirement asks of the envs' agents, as the errors when it is not met. */
const rewardRequirements: Record<RewardRequirement, (name: string, agents: EnvAgents) => string[]> = {
  plans: (name, agents) =>
    agents.some(({ agent }) => agent.paradigm === 'adaplan')
      ? []
      : [`${name} scores plans, but agent.paradigm is "react": there are no plans; drop it or use adaplan`],
  planSteps: (name, agents) =>
    agents
      .filter(({ agent }) => agent.paradigm === 'adaplan' && agent.plan !== 'steps')
      .map(
        ({ of }) =>
          `${of}${name} checks plan steps the env can evaluate, which free-text plans are not; set agent.plan: steps (and agent.actionSpace: choice)`,
      ),
};

export const curriculumConfigSchema = strict({
  name: z.string().min(1).default('custom'),
  /**
   * Plug-in modules whose envs the curriculum may name: package names (installed beside the config
   * or the working directory) or paths (relative to the config file). Loaded before the rest is read.
   */
  plugins: z.array(z.string().min(1).max(1024)).max(64).default([]),
  /** Master seed: task order, sampling; every derived seed is recorded in the run directory. */
  seed: seed.default(1),
  env: envSectionSchema.default(envConfigSchema.parse({})),
  /**
   * Where the weights live and train: `kind` names a registered policy backend (`tfjs` in this
   * process, the default; `hf`, a pretrained Hugging Face model from disk, in this process; `tinker`
   * on a Tinker server; or one a plug-in offers), the other keys are that backend's own and `seed`,
   * `valueHead` and `init`.
   */
  policy: policySectionSchema.prefault({}),
  agent: agentConfigSchema.default(agentConfigSchema.parse({})),
  /** OpenAI-compatible model used for stage-1 plans or the LLM judge. */
  llm: llmConfigSchema.optional(),
  sft: sftConfigSchema.optional(),
  stages: z.array(stageConfigSchema).default([]),
  eval: evalConfigSchema.default(evalConfigSchema.parse({})),
  checkpoint: strict({ every: positiveInt.default(5), keep: positiveInt.default(2) }).default({
    every: 5,
    keep: 2,
  }),
  watch: watchConfigSchema.default(watchConfigSchema.parse({})),
  /** Episodes written to episodes.jsonl per iteration. */
  sampleEpisodes: z.number().int().nonnegative().default(2),
  logging: strict({
    /** The metrics and evaluations also as a TensorBoard event file in the run directory. */
    tensorboard: z.boolean().default(true),
  }).default({ tensorboard: true }),
}).superRefine((config, context) => {
  const issue = (path: (string | number)[], message: string) =>
    context.addIssue({ code: 'custom', path, message });
  // The agent each env plays: the top-level one, with a mixture env's own settings over it.
  const agents = envCurricula(config).map(({ id, config: envConfig }) => ({
    agent: envConfig.agent,
    of: isMixture(config.env) ? `env "${id}": ` : '',
  }));
  if (config.sft === undefined && config.stages.length === 0) {
    issue(['stages'], 'nothing to train: give an `sft` section, at least one stage, or both');
  }
  config.stages.forEach((stage, index) => {
    const at = (key: string) => ['stages', index, key];
    // A ReAct env of a mixture plays the plan stages as joint ones; they need one env that plans.
    if (stage.kind !== 'joint' && agents.every(({ agent }) => agent.paradigm === 'react')) {
      issue(
        at('kind'),
        `stage "${stage.kind}" trains plans, but agent.paradigm is "react"${agents.length > 1 ? ' for every env' : ''}; use "joint"`,
      );
    }
    if (stage.kind === 'plan' && !('plan_quality' in stage.rewards)) {
      issue(
        at('rewards'),
        'stage "plan" needs a `plan_quality` reward weight (PilotRL: judge score + outcome)',
      );
    }
    if (!('outcome' in stage.rewards)) {
      issue(at('rewards'), 'every stage needs an `outcome` reward weight');
    }
    // Each reward's stage kinds and requirements, from its descriptor.
    for (const name of Object.keys(stage.rewards)) {
      const where = ['stages', index, 'rewards', name];
      if (!rewardRegistry.has(name)) {
        issue(where, `unknown reward; allowed: ${rewardRegistry.ids().join(', ')}`);
        continue;
      }
      const reward = rewardRegistry.get(name);
      if (reward.stageKinds !== undefined && !reward.stageKinds.includes(stage.kind)) {
        issue(
          where,
          `${name} is a stage ${reward.stageKinds.map((kind) => `"${kind}"`).join(' or ')} reward only`,
        );
      }
      for (const requirement of reward.requires) {
        for (const problem of rewardRequirements[requirement](name, agents)) issue(where, problem);
      }
    }
    for (const { agent, of } of agents) {
      if (stage.algorithm === 'expert-iteration') {
        if (agent.actionSpace !== 'choice') {
          issue(
            at('algorithm'),
            `${of}expert iteration replays and shortens the commands played; it needs agent.actionSpace: choice`,
          );
        }
        if (agent.paradigm === 'adaplan' && agent.plan !== 'steps') {
          issue(
            at('algorithm'),
            `${of}expert iteration replays plans in the env's plan-step vocabulary, not free text: set agent.plan: steps, or use agent.paradigm: react`,
          );
        }
      }
      if (stage.kind === 'follow' && stage.planSource === 'llm' && agent.plan === 'steps') {
        issue(
          at('planSource'),
          `${of}an LLM writes free-text plans, which agent.plan: steps cannot follow; use "oracle"`,
        );
      }
      const plans = agents.length === 1 || agent.paradigm === 'adaplan';
      if (stage.kind === 'follow' && stage.planCandidates > 1 && agent.plan !== 'steps' && plans) {
        issue(
          at('planCandidates'),
          `${of}candidate plans are drawn in the env's plan steps; set agent.plan: steps or planCandidates: 1`,
        );
      }
    }
    if (stage.algorithm === 'expert-iteration' && stage.expertIteration.mix < 1 && config.sft === undefined) {
      issue(
        ['stages', index, 'expertIteration', 'mix'],
        'mixes in demonstrations, but there is no `sft` section to take them from; add one or set mix: 1',
      );
    }
    // The estimator's options and requirements, from its descriptor.
    if (stage.algorithm === 'policy-gradient' && advantageEstimators.has(stage.estimator)) {
      const estimator = advantageEstimators.get(stage.estimator);
      const options = estimator.optionsSchema.safeParse(stage.estimatorOptions);
      if (!options.success) {
        for (const problem of options.error.issues) {
          issue(['stages', index, 'estimatorOptions', ...problem.path.map(String)], problem.message);
        }
      }
      for (const requirement of estimator.requires) {
        const unmet = estimatorRequirements[requirement](stage, config);
        if (unmet !== undefined) issue(at(unmet.key), `estimator "${stage.estimator}" ${unmet.message}`);
      }
    }
    if (stage.loss.clipLow >= 1) issue(['stages', index, 'loss', 'clipLow'], 'must be below 1');
    if (stage.minibatches > stage.tasksPerIteration * stage.groupSize) {
      issue(
        at('minibatches'),
        'more minibatches than episodes per iteration (tasksPerIteration × groupSize)',
      );
    }
    const needsLlm =
      (stage.kind === 'follow' && stage.planSource === 'llm') ||
      (stage.kind === 'plan' &&
        judgeRegistry.has(stage.judge) &&
        judgeRegistry.get(stage.judge).requires.includes('llm'));
    if (needsLlm && config.llm === undefined) {
      issue(
        at(stage.kind === 'follow' ? 'planSource' : 'judge'),
        `"${stage.kind === 'plan' ? stage.judge : 'llm'}" needs a top-level \`llm\` section`,
      );
    }
  });
  for (const { agent, of } of agents) {
    if (agent.plan === 'steps') {
      if (agent.paradigm !== 'adaplan') {
        issue(['agent', 'plan'], `${of}plan steps are AdaPlan plans; agent.paradigm is "react"`);
      }
      if (agent.actionSpace !== 'choice') {
        issue(
          ['agent', 'plan'],
          `${of}plan steps are written as constrained choices; set agent.actionSpace: choice too`,
        );
      }
    }
    if (!agent.listActions && agent.prompt !== 'compact') {
      issue(
        ['agent', 'listActions'],
        `${of}only the compact prompt can leave out the admissible commands; set agent.prompt: compact`,
      );
    }
  }
  for (const problem of policyProblems(config, agents)) issue(problem.path, problem.message);
  if (config.policy.init !== undefined && config.sft !== undefined) {
    issue(['sft'], 'policy.init loads a trained checkpoint; drop `sft` or `policy.init`');
  }
  const run = {
    contextLength: policyContextLength(config.policy),
    maxSteps: Math.max(...envCurricula(config).map((env) => env.config.env.maxSteps)),
    stages: config.stages,
    evalEpisodes: config.eval.episodes,
  };
  for (const problem of episodeMemoryProblems(run)) issue(problem.path, problem.message);
});

export type CurriculumConfig = z.output<typeof curriculumConfigSchema>;
export type CurriculumConfigInput = z.input<typeof curriculumConfigSchema>;
export type StageConfig = CurriculumConfig['stages'][number];

/** A curriculum as one of its envs plays it: that env alone, with the agent it plays. */
export type EnvCurriculum = Omit<CurriculumConfig, 'env'> & { env: EnvConfig };

/**
 * Each env of a curriculum with its weight, as its own single-env curriculum (a mixture env's
 * agent settings over the top-level ones). A single-env curriculum is its one env, weight 1.
 */
export function envCurricula(
  config: CurriculumConfig,
): { id: string; weight: number; config: EnvCurriculum }[] {
  const { env } = config;
  if (!isMixture(env)) return [{ id: env.id, weight: 1, config: { ...config, env } }];
  return env.mixture.map(({ weight, agent, ...single }) => ({
    id: single.id,
    weight,
    config: { ...config, env: single, agent: { ...config.agent, ...agent } },
  }));
}

/** Validates a parsed config object, or throws a ConfigError listing its problems (up to 20) with their keys. */
export function parseConfig(value: unknown, source = 'config'): CurriculumConfig {
  const result = curriculumConfigSchema.safeParse(value);
  if (result.success) return result.data;
  const problems = describeIssues(result.error.issues).map((line) => `  ${line}`);
  throw new ConfigError(`Invalid curriculum in ${source}:\n${problems.join('\n')}`);
}

/** The largest config file read; the presets' files are about 2 KB. */
export const MAX_CONFIG_FILE_BYTES = 256 * 1024;

/** The deepest nesting of lists and maps in a config file; the schema's is 4, `env.options` may add some. */
export const MAX_CONFIG_NESTING = 32;

/** How deep the lists and objects of JSON text nest, read without building them. */
function jsonNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') deepest = Math.max(deepest, ++depth);
    else if (char === ']' || char === '}') depth--;
  }
  return deepest;
}

/**
 * How deep the collections of YAML text nest, from its syntax tree, walked without recursion (the
 * YAML parser builds that tree iteratively; composing values from it recurses per level).
 */
function yamlNesting(text: string): number {
  let deepest = 0;
  const pending: [unknown, number][] = [...new YamlParser().parse(text)].map((token) => [token, 0]);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    const { items, key, value } = node as { items?: unknown; key?: unknown; value?: unknown };
    const inner = Array.isArray(items) ? depth + 1 : depth;
    deepest = Math.max(deepest, inner);
    if (Array.isArray(items)) for (const item of items) pending.push([item, inner]);
    pending.push([key, inner], [value, inner]);
  }
  return deepest;
}

/**
 * YAML text as a value. Warnings (an unknown tag, say) refuse the file like errors do: the config
 * would otherwise load with a value other than the one written.
 */
function parseYamlText(text: string): unknown {
  const document = parseDocument(text);
  const problem = document.errors[0] ?? document.warnings[0];
  // The first line says what and where (line and column); the lines after it quote the file.
  if (problem !== undefined) throw new Error(problem.message.split('\n', 1)[0]!.replace(/:$/, ''));
  return document.toJS();
}

/**
 * Reads a `.yaml`, `.yml` or `.json` curriculum file of at most `MAX_CONFIG_FILE_BYTES`, after
 * loading the plug-ins it names (paths relative to the file).
 */
export async function loadConfigFile(path: string): Promise<CurriculumConfig> {
  return parseConfig(await loadConfigPlugins(readConfigFile(path), dirname(resolve(path))), path);
}

/** The value a `.yaml`, `.yml` or `.json` file of at most `MAX_CONFIG_FILE_BYTES` holds, not yet checked. */
export function readConfigFile(path: string): unknown {
  const unreadable = (cause: unknown) =>
    new ConfigError(`Cannot read config file ${path}: ${(cause as Error).message}`, { cause });
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch (cause) {
    throw unreadable(cause);
  }
  if (bytes > MAX_CONFIG_FILE_BYTES) {
    throw new ConfigError(
      `${path} is ${bytes} bytes; a config file is at most ${MAX_CONFIG_FILE_BYTES} (MAX_CONFIG_FILE_BYTES)`,
    );
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw unreadable(cause);
  }
  const extension = extname(path).toLowerCase();
  const nesting = extension === '.json' ? jsonNesting(text) : yamlNesting(text);
  if (nesting > MAX_CONFIG_NESTING) {
    throw new ConfigError(
      `${path} nests lists and maps ${nesting} deep; a config file nests at most ${MAX_CONFIG_NESTING} (MAX_CONFIG_NESTING)`,
    );
  }
  let value: unknown;
  try {
    value = extension === '.json' ? JSON.parse(text) : parseYamlText(text);
  } catch (cause) {
    throw new ConfigError(
      `${path} is not valid ${extension === '.json' ? 'JSON' : 'YAML'}: ${printable((cause as Error).message)}`,
      { cause },
    );
  }
  return value;
}
