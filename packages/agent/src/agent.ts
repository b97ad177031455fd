// AdaPlan and ReAct agents: a policy plus everything that decides how it is prompted, how its
// output is read, and how the plan is made and revised.
import {
  type EpisodeViewFactory,
  type Plan,
  type PlanStepVocabulary,
  type Policy,
  parseOrThrow,
  type TaskRef,
} from '@pilotrl/core';
import { z } from 'zod';
import { type ActionMatcher, createActionMatcher } from './action-matcher';
import type { Paradigm, PromptTemplate } from './prompt-templates';

/** Sampling settings for one kind of generation. */
export const samplingSchema = z.object({
  /** Most tokens the model may write in one answer. */
  maxTokens: z.number().int().positive(),
  temperature: z.number().min(0).default(1),
  topP: z.number().gt(0).max(1).default(1),
});

/** What an external plan source is told about the task. */
export interface PlanRequestInput {
  task: TaskRef;
  /** The goal in words. */
  goal: string;
  initialObservation: string;
  admissibleActions: readonly string[];
}

/** Plans from outside the policy (oracle, an LLM, a user): one plan, or candidates to choose from. */
export type PlanProvider = (input: PlanRequestInput) => Promise<Plan[]>;

/**
 * How many plan steps are carried out so far, given the plan in force and the turns played.
 * The default reads the thoughts: the highest `Step N` a thought names is the step in progress,
 * so the steps before it are done.
 */
export type StepTracker = (input: { plan: Plan; thoughts: readonly (string | null)[] }) => number;

export const thoughtStepTracker: StepTracker = ({ plan, thoughts }) => {
  let current = 1;
  for (const thought of thoughts) {
    if (thought === null) continue;
    for (const match of thought.matchAll(/\bstep\s+(\d+)\b/gi)) current = Math.max(current, Number(match[1]));
  }
  return Math.max(0, Math.min(current - 1, plan.length));
};

const functionSchema = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', { message: `${what} must be a function` });

export const revisionSchema = z.discriminatedUnion('mode', [
  /** Reference behaviour: before every action, the executed steps kept fixed. */
  z.object({ mode: z.literal('every_turn') }),
  /** Before the actions of turns k, 2k, 3k, ... */
  z.object({ mode: z.literal('every_k'), k: z.number().int().positive() }),
  /**
   * When the env contradicts the plan in force: before the action of a turn after the last action
   * was refused; or, at least `turns` turns after a plan was last asked for, when every step of the
   * plan was carried out with the episode still going or the last `turns` turns carried out none.
   */
  z.object({ mode: z.literal('on_stall'), turns: z.number().int().positive().default(2) }),
  /** The first plan stays in force for the whole episode. */
  z.object({ mode: z.literal('never') }),
]);
export type RevisionOptions = z.infer<typeof revisionSchema>;

export const planSourceSchema = z.discriminatedUnion('kind', [
  /** The policy writes its own plan. */
  z.object({ kind: z.literal('policy') }),
  /**
   * Plans come from `provider` and are recorded under `source`. With several candidates, the
   * policy picks one through a constrained-choice generation.
   */
  z.object({
    kind: z.literal('provided'),
    source: z.enum(['oracle', 'llm', 'external']),
    provider: functionSchema<PlanProvider>('plan provider'),
  }),
]);
export type PlanSourceOptions = z.infer<typeof planSourceSchema>;

export const agentOptionsSchema = z.object({
  /** Turns before an episode is cut (truncated). */
  maxTurns: z.number().int().positive().default(30),
  /** Context window of the policy in tokens (prompt + answer). */
  contextTokens: z.number().int().positive().default(4096),
  /** Most past turns shown in a prompt; fewer when the budget is tight. */
  historyTurns: z.number().int().nonnegative().default(10),
  act: samplingSchema.default({ maxTokens: 128, temperature: 1, topP: 1 }),
  plan: samplingSchema.default({ maxTokens: 256, temperature: 1, topP: 1 }),
  /** What a malformed answer costs: a per-turn penalty (the episode goes on) or the end of the episode. */
  formatError: z
    .object({
      mode: z.enum(['penalty', 'terminate']).default('penalty'),
      penalty: z.number().max(0).default(-0.1),
    })
    .default({ mode: 'penalty', penalty: -0.1 }),
  /** Longest accepted action, in characters. */
  maxActionChars: z.number().int().positive().default(200),
  maxPlanSteps: z.number().int().positive().default(20),
  /** Milliseconds one batched policy call may take; past it the rollout fails with a TimeoutError. */
  callTimeoutMs: z.number().int().positive().default(300_000),
  /** AdaPlan only: where the plan comes from and when it is revised. */
  planSource: planSourceSchema.default({ kind: 'policy' }),
  revision: revisionSchema.default({ mode: 'every_turn' }),
  stepTracker: functionSchema<StepTracker>('step tracker').default(() => thoughtStepTracker),
  /**
   * How the policy answers each turn. `free-text`: it writes `<thought>…</thought><action>…</action>`
   * and unreadable answers are counted format errors. `choice`: it picks one of the env's admissible
   * commands by constrained decoding, so a turn cannot be malformed and the logprob of the chosen
   * command is exact.
   */
  actionSpace: z.enum(['free-text', 'choice']).default('free-text'),
  /**
   * A state view (`EpisodeViewFactory`, e.g. an env's compact one): every prompt is then one user
   * message, the view's text plus the request, instead of the system prompt and the conversation.
   */
  view: functionSchema<EpisodeViewFactory>('episode view').optional(),
  /**
   * AdaPlan only: an env's plan-step vocabulary. The policy then writes its plan one step at a time
   * through a trie over the vocabulary (constrained choices), so every plan parses, and the rollout
   * counts the steps carried out from the actions taken (`executes`); revisions keep those fixed.
   * Without it plans are free text and `stepTracker` says which steps are done.
   */
  planSteps: z
    .custom<PlanStepVocabulary>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as PlanStepVocabulary).steps === 'function' &&
        typeof (value as PlanStepVocabulary).executes === 'function',
      { message: 'planSteps must be a PlanStepVocabulary ({ steps, executes })' },
    )
    .optional(),
  /** A fixed template; by default the env's registered template (or the default one). */
  promptTemplate: z.custom<PromptTemplate>((value) => typeof value === 'object' && value !== null).optional(),
  actionMatcher: z
    .custom<ActionMatcher>((value) => typeof value === 'object' && value !== null)
    .default(() => createActionMatcher()),
});
export type AgentOptions = z.input<typeof agentOptionsSchema>;
export type ResolvedAgentOptions = z.output<typeof agentOptionsSchema>;

export interface Agent {
  readonly paradigm: Paradigm;
  readonly policy: Policy;
  readonly options: ResolvedAgentOptions;
}

/** An AdaPlan agent: a global plan first, then thought + action per turn, the plan revised as it goes. */
export function createAdaPlanAgent(policy: Policy, options: AgentOptions = {}): Agent {
  return {
    paradigm: 'adaplan',
    policy,
    options: parseOrThrow(agentOptionsSchema, options, 'AdaPlan agent options'),
  };
}

/** A ReAct agent: thought + action per turn, no plan. Plan options are ignored. */
export function createReActAgent(policy: Policy, options: AgentOptions = {}): Agent {
  return {
    paradigm: 'react',
    policy,
    options: parseOrThrow(agentOptionsSchema, options, 'ReAct agent options'),
  };
}

/** What `revisionDue` reads of an episode: its turns so far and its plan's progress. */
export interface RevisionView {
  /** Whether each turn's action was accepted by the env. */
  turns: readonly { valid: boolean }[];
  plan: {
    current: readonly string[] | null;
    /** Plan steps carried out by now, and before each turn's action. */
    stepsDone: number;
    stepsDoneByTurn: readonly number[];
    /** The turn before whose action a plan was last asked for. */
    askedAt: number;
  };
}

/**
 * Whether an AdaPlan agent asks for a plan revision before the action of `turn` (turn 0 is the
 * first plan); `on_stall` reads the episode.
 */
export function revisionDue(revision: RevisionOptions, turn: number, episode: RevisionView): boolean {
  if (turn === 0) return false;
  if (revision.mode === 'every_turn') return true;
  if (revision.mode === 'every_k') return turn % revision.k === 0;
  if (revision.mode === 'never') return false;
  const { plan, turns } = episode;
  if (turns.at(-1)?.valid === false) return true;
  if (turn - plan.askedAt < revision.turns) return false;
  if (plan.current !== null && plan.stepsDone >= plan.current.length) return true;
  // Steps done before the action `revision.turns` turns ago: none carried out since.
  return plan.stepsDoneByTurn[turn - revision.turns] === plan.stepsDone;
}
