// The batched rollout runner: N tasks × G samples, all episodes stepped in lock-step over one
// vector env, with one batched policy call per generation phase (plan, then act) for all
// live episodes. Every generation is recorded token for token.
import {
  ConfigError,
  canCheckStepsAt,
  canCopyAt,
  createStepCheckRecorder,
  EPISODE_FORMAT_VERSION,
  type Episode,
  type EpisodeView,
  type GenerateRequest,
  type GenerateResult,
  type Generation,
  InvalidArgumentError,
  type Plan,
  type PlanRevision,
  parseOrThrow,
  type ResetOptions,
  type StepCheckRecorder,
  type StepResult,
  type TaskRef,
  type Turn,
  taskRefSchema,
  type VectorEnv,
  type VectorStepChecks,
} from '@pilotrl/core';
import { z } from 'zod';
import { type Agent, revisionDue } from './agent';
import { discardedTokens, pickBestPlans, planCandidate, sampleBestPlans, sampleSeed } from './best-of-n';
import { type LookaheadDecision, searchByLookahead } from './lookahead-search';
import { parseActOutput, parsePlanOutput } from './output-parser';
import { callPolicy, mixSeed } from './policy-call';
import { type PromptTemplate, planBlock, promptTemplateFor } from './prompt-templates';
import { addCompute, emptyCompute, generatedTokensOf, type SearchCompute } from './search-compute';
import { StepPlanDraft, stepTrie } from './step-trie';
import {
  type BestOfNSearch,
  type LookaheadSearch,
  type ResolvedTestTimeSearch,
  resolveSearch,
  type TestTimeSearch,
} from './test-time-search';
import {
  choiceReserve,
  countMessageTokens,
  fitConversation,
  type TokenCounter,
  tokenCounterFor,
} from './token-budget';
import { type TurnZeroEnd, type TurnZeroReport, turnZeroReports, warnTurnZeroEnds } from './turn-zero-ends';

export const rolloutOptionsSchema = z
  .object({
    /** The env kind, recorded in every episode and used to pick the prompt template. */
    envId: z.string().min(1),
    tasks: z.array(taskRefSchema).min(1),
    /** Samples per task (a GRPO group); they share the task and the env seed. */
    groupSize: z.number().int().positive().default(1),
    /** Prefix of group and episode ids. */
    runId: z.string().min(1).default('rollout'),
    /** Base of the per-request sampling seeds. */
    seed: z.number().int().nonnegative().default(0),
    /**
     * Per task, a goal that replaces the one the env states (e.g. a hindsight goal the episode is
     * replayed for); `null` keeps the env's. Same length as `tasks`.
     */
    goals: z.array(z.string().min(1).nullable()).optional(),
    /** Test-time search (best-of-N plans, look-ahead over env copies); none by default. */
    search: z
      .custom<TestTimeSearch>((value) => typeof value === 'object' && value !== null, {
        message: 'search must be a test-time search ({ kind: "best-of-n" | "lookahead", ... })',
      })
      .optional(),
    /**
     * Record each episode's `stepChecks` as it is played: the env it plays on checks the plan in
     * force after every turn against its state (core's `StepChecks`, bookkept by
     * `createStepCheckRecorder`), for rewards paid by plan step (`step_pass`). Needs a vector env
     * over envs that offer step checks.
     */
    recordStepChecks: z.boolean().default(false),
  })
  .refine((options) => options.goals === undefined || options.goals.length === options.tasks.length, {
    message: 'goals must have one entry per task',
    path: ['goals'],
  });
export type RolloutOptions = z.input<typeof rolloutOptionsSchema>;

/** Why an episode ended, in `metadata.endReason`. */
export type EndReason =
  | 'env_done'
  | 'max_turns'
  | 'format_error'
  | 'context_overflow'
  | 'env_error'
  /** The `choice` action space met a state where the env admits no command. */
  | 'no_actions';

interface Slot {
  slot: number;
  task: TaskRef;
  sampleIndex: number;
  groupId: string;
  /** Distinct per episode of the run, mixed into sampling seeds. */
  stream: number;
  goal: string;
  initialObservation: string;
  /** The agent's state view, when it prompts with one instead of the conversation. */
  view: EpisodeView | null;
  /** Every observation so far, the opening one first (what a plan-step vocabulary is built from). */
  observations: string[];
  /** With a plan-step vocabulary: how many steps of the plan in force the actions carried out. */
  executedSteps: number;
  /** AdaPlan: the plan steps done before each turn's action (the executed-step index, or the tracker's reading). */
  stepsDoneByTurn: number[];
  /** Plan phases in which the vocabulary offered no step at all. */
  emptyVocabularies: number;
  current: StepResult;
  turns: Turn[];
  planHistory: PlanRevision[];
  plan: Plan | null;
  history: { assistant: string; user: string }[];
  done: boolean;
  endReason: EndReason | null;
  /** The turn during which the episode ended (0: at reset or in its first turn). */
  endTurn: number | null;
  /** Where the prompt did not fit: the smallest the agent could build and the tokens it had. */
  overflowPrompt: { tokens: number; budgetTokens: number } | null;
  envError: string | null;
  contextCuts: number;
  omittedTurnsMax: number;
  actionRules: Record<string, number>;
  fixedStepEdits: number;
  /** This turn, before the env step. */
  generations: Generation[];
  formatError: string | null;
  /** What a search spent beyond the episode's own generations and steps. */
  compute: SearchCompute;
  /** Turns whose command a look-ahead chose over the policy's recorded answer. */
  searchOverrides: number[];
  /** With `recordStepChecks`: the checks of the plan in force, against this slot's env. */
  stepChecks: StepCheckRecorder | null;
}

/** A generation record: prompt + completion ids, loss on the completion only. */
export function toGeneration(kind: Generation['kind'], result: GenerateResult): Generation {
  const prompt = result.promptTokenIds.length;
  const completion = result.tokenIds.length;
  return {
    kind,
    text: result.text,
    tokenIds: [...result.promptTokenIds, ...result.tokenIds],
    lossMask: [...new Array<0>(prompt).fill(0), ...new Array<1>(completion).fill(1)],
    logprobs: [...new Array<number>(prompt).fill(0), ...result.logprobs],
    policyVersion: result.policyVersion,
    finishReason: result.finishReason,
    // Constrained decoding's logprobs are normalised over these sets; a trainer needs them too.
    ...(result.allowedTokenIds !== undefined
      ? { allowedTokenIds: [...new Array<null>(prompt).fill(null), ...result.allowedTokenIds] }
      : {}),
  };
}

/** What a caller hears while a rollout runs. */
export interface RolloutHooks {
  /** Each wave's episodes as soon as they finish (so a failure later loses none of them). */
  onEpisodes?(episodes: readonly Episode[]): void | Promise<void>;
  /**
   * Most episodes (more than half, at least a few) ended at turn 0: their first prompt did not fit
   * the context, the env admitted no command, or the env failed at once. Called once per cause at
   * the end of the rollout. Without this hook the rollout warns instead (`process.emitWarning`,
   * codes `TURN_ZERO_WARNING_CODES`), once per cause per process.
   */
  onTurnZeroEnds?(report: TurnZeroReport): void;
}

/**
 * Plays every task `groupSize` times and returns the episodes in task order, samples in order
 * within a task. Tasks run in waves of `floor(vectorEnv.size / groupSize)` tasks.
 */
export async function rollout(
  agent: Agent,
  vectorEnv: VectorEnv,
  options: RolloutOptions,
  hooks: RolloutHooks = {},
): Promise<Episode[]> {
  const config = parseOrThrow(rolloutOptionsSchema, options, 'rollout options');
  const search = config.search === undefined ? undefined : resolveSearch(config.search, agent);
  if (search?.kind === 'lookahead' && !canCopyAt(vectorEnv)) {
    throw new ConfigError(
      'lookahead search plays candidates on copies of the envs, but this vector env cannot copy them; use createVectorEnv over envs that implement copy() (StateCopies)',
    );
  }
  const tasksPerWave = Math.floor(vectorEnv.size / config.groupSize);
  if (tasksPerWave === 0) {
    throw new ConfigError(
      `a vector env of ${vectorEnv.size} envs cannot hold a group of ${config.groupSize} samples; use at least ${config.groupSize} envs`,
    );
  }
  const episodes: Episode[] = [];
  const turnZero: TurnZeroEnd[] = [];
  for (let start = 0; start < config.tasks.length; start += tasksPerWave) {
    const wave = config.tasks.slice(start, start + tasksPerWave);
    const finished = await runWave(agent, vectorEnv, config, wave, start, search);
    episodes.push(...finished.episodes);
    turnZero.push(...finished.turnZero);
    await hooks.onEpisodes?.(finished.episodes);
  }
  const reports = turnZeroReports(turnZero, {
    envId: config.envId,
    total: episodes.length,
    contextTokens: agent.options.contextTokens,
    countsExactly: agent.policy.countTokens !== undefined,
  });
  for (const report of reports) (hooks.onTurnZeroEnds ?? warnTurnZeroEnds)(report);
  return episodes;
}

async function runWave(
  agent: Agent,
  vectorEnv: VectorEnv,
  config: z.output<typeof rolloutOptionsSchema>,
  wave: TaskRef[],
  firstTaskIndex: number,
  search: ResolvedTestTimeSearch | undefined,
): Promise<{ episodes: Episode[]; turnZero: TurnZeroEnd[] }> {
  const { options, policy, paradigm } = agent;
  // With recordStepChecks: the vector env that hands out its members' checks.
  let checking: VectorStepChecks | undefined;
  if (config.recordStepChecks) {
    if (!canCheckStepsAt(vectorEnv)) {
      throw new ConfigError(
        'recordStepChecks checks plan steps against the envs played on, but this vector env cannot reach their checks; use createVectorEnv over envs that implement checkStep() (StepChecks), or drop recordStepChecks',
      );
    }
    checking = vectorEnv;
  }
  const bestOfN = search?.kind === 'best-of-n' ? search : undefined;
  const lookahead = search?.kind === 'lookahead' ? search : undefined;
  const template = options.promptTemplate ?? promptTemplateFor(config.envId);
  const count = tokenCounterFor(policy);
  const assignments = wave.flatMap((task, offset) =>
    Array.from({ length: config.groupSize }, (_, sampleIndex) => ({
      task,
      sampleIndex,
      taskIndex: firstTaskIndex + offset,
    })),
  );
  // Slots beyond the wave replay the first task and are never stepped: the contract resets all envs.
  const resetOptions: ResetOptions[] = Array.from({ length: vectorEnv.size }, (_, slot) => {
    const { task } = assignments[slot] ?? assignments[0]!;
    return { seed: task.seed, taskId: task.taskId };
  });
  const first = await vectorEnv.reset(resetOptions);
  const slots: Slot[] = assignments.map(({ task, sampleIndex, taskIndex }, slot) => {
    const start = first[slot]!;
    const goal = config.goals?.[taskIndex] ?? start.info.task ?? task.description ?? '';
    return {
      slot,
      task,
      sampleIndex,
      groupId: `${config.runId}/${taskIndex}-${task.taskId}`,
      stream: taskIndex * config.groupSize + sampleIndex,
      goal,
      initialObservation: start.observation,
      view: options.view?.({ goal, observation: start.observation }) ?? null,
      observations: [start.observation],
      executedSteps: 0,
      stepsDoneByTurn: [],
      emptyVocabularies: 0,
      current: start,
      turns: [],
      planHistory: [],
      plan: null,
      history: [],
      done: false,
      endReason: null,
      endTurn: null,
      overflowPrompt: null,
      envError: null,
      contextCuts: 0,
      omittedTurnsMax: 0,
      actionRules: {},
      fixedStepEdits: 0,
      generations: [],
      formatError: null,
      compute: emptyCompute(),
      searchOverrides: [],
      stepChecks: null,
    };
  });
  for (const state of slots) {
    if (state.current.terminated || state.current.truncated) {
      finish(state, state.current.info.error === undefined ? 'env_done' : 'env_error', 0);
      state.envError = state.current.info.error ?? null;
    } else if (checking !== undefined) {
      state.stepChecks = createStepCheckRecorder(checking.stepChecksAt(state.slot, 'recording step checks'), {
        envId: config.envId,
        episodeId: episodeIdOf(state),
      });
    }
  }

  const intro = (state: Slot) =>
    template.intro({
      task: state.goal,
      observation: state.initialObservation,
      admissibleActions:
        state.turns.length === 0 && state.history.length === 0 ? state.current.admissibleActions : [],
    });
  // A live episode has recorded every turn before the one it is prompted for.
  const overflow = (state: Slot, tokens: number, budgetTokens: number) => {
    state.overflowPrompt = { tokens, budgetTokens };
    finish(state, 'context_overflow', state.turns.length);
  };
  const prompt = (state: Slot, request: string, maxTokens: number): GenerateRequest['messages'] => {
    if (state.view !== null) {
      const view = state.view.prompt();
      const messages = [{ role: 'user' as const, content: request === '' ? view : `${view}\n${request}` }];
      const tokens = countMessageTokens(messages, count);
      if (tokens > options.contextTokens - maxTokens)
        overflow(state, tokens, options.contextTokens - maxTokens);
      return messages;
    }
    const fitted = fitConversation(
      { system: template.system(paradigm), intro: intro(state), history: state.history, request },
      { promptTokens: options.contextTokens - maxTokens, historyTurns: options.historyTurns, count },
    );
    if (fitted.cut) state.contextCuts += 1;
    state.omittedTurnsMax = Math.max(state.omittedTurnsMax, fitted.omittedTurns);
    if (fitted.overflow) overflow(state, fitted.tokens, options.contextTokens - maxTokens);
    return fitted.messages;
  };

  for (let turn = 0; turn < options.maxTurns; turn += 1) {
    const live = slots.filter((state) => !state.done);
    if (live.length === 0) break;
    for (const state of live) {
      state.generations = [];
      state.formatError = null;
    }
    if (paradigm === 'adaplan') await planPhase(agent, template, config, live, turn, prompt, bestOfN);

    const planFailedFatally = (state: Slot) =>
      state.formatError !== null && options.formatError.mode === 'terminate';
    const acting = live.filter((state) => !state.done && !planFailedFatally(state));
    const choosing = options.actionSpace === 'choice';
    const requests: GenerateRequest[] = [];
    const requesters: Slot[] = [];
    for (const state of acting) {
      const choices = state.current.admissibleActions;
      if (choosing && choices.length === 0) {
        state.envError = `the env admits no command to choose from at turn ${turn}`;
        finish(state, 'no_actions', turn);
        continue;
      }
      const request = { paradigm, plan: state.plan, fixedSteps: stepsDone(agent, state) };
      // A choice needs room for the choices as the policy scores them (packed, or the longest).
      const reserve = choosing ? choiceReserve(policy, choices) : options.act.maxTokens;
      const messages = prompt(
        state,
        choosing ? template.commandRequest(request) : template.actRequest(request),
        reserve,
      );
      if (state.done) continue;
      requesters.push(state);
      requests.push({
        kind: 'act',
        messages,
        maxTokens: options.act.maxTokens,
        temperature: options.act.temperature,
        topP: options.act.topP,
        ...(choosing ? { choices: [...choices] } : { stop: ['</action>'] }),
        seed: mixSeed(config.seed, state.stream, turn, 1),
      });
    }
    const answers =
      requests.length === 0
        ? []
        : lookahead === undefined
          ? (await callPolicy(policy, requests, options.callTimeoutMs, 'act')).map((result) => ({
              result,
              searched: undefined,
            }))
          : await lookaheadAnswers(agent, vectorEnv, config, lookahead, requesters, requests, turn);
    const actions: (string | null)[] = new Array(vectorEnv.size).fill(null);
    const parsedBySlot = new Map<number, { thought: string | null; action: string | null; text: string }>();
    for (const [index, state] of requesters.entries()) {
      const { result, searched } = answers[index]!;
      state.generations.push(toGeneration('act', result));
      if (choosing) {
        const proposed = chosenCommand(policy.name, state.current.admissibleActions, result);
        if (state.formatError !== null && options.formatError.mode === 'terminate') continue;
        const command = searched ?? proposed;
        if (command !== proposed) state.searchOverrides.push(turn);
        actions[state.slot] = command;
        parsedBySlot.set(state.slot, { thought: null, action: command, text: command });
        continue;
      }
      const parsed = parseActOutput(result.text, {
        maxActionChars: options.maxActionChars,
        maxPlanSteps: options.maxPlanSteps,
      });
      if (!parsed.ok) {
        state.formatError = joinErrors(state.formatError, `${parsed.code}: ${parsed.message}`);
        parsedBySlot.set(state.slot, { thought: null, action: null, text: result.text });
        continue;
      }
      parsedBySlot.set(state.slot, { thought: parsed.thought, action: null, text: result.text });
      if (state.formatError !== null && options.formatError.mode === 'terminate') continue;
      const match = options.actionMatcher.match(parsed.action, state.current.admissibleActions);
      state.actionRules[match.rule] = (state.actionRules[match.rule] ?? 0) + 1;
      actions[state.slot] = match.command;
      parsedBySlot.set(state.slot, { thought: parsed.thought, action: match.command, text: result.text });
    }

    // A plan adopted this turn is in force for its action. A turn that goes unrecorded (its episode
    // ended before generating anything) leaves the checks as they stand, as a replay of it would.
    for (const state of live) {
      const revision = state.planHistory.at(-1);
      if (revision?.turn === turn && isRecorded(state)) state.stepChecks?.planInForce(revision.steps);
    }
    const stepped = await vectorEnv.step(actions);
    for (const state of live) {
      if (!isRecorded(state)) continue;
      const parsed = parsedBySlot.get(state.slot) ?? { thought: null, action: null, text: '' };
      const result = parsed.action === null ? null : (stepped[state.slot] ?? null);
      const penalty = state.formatError === null ? 0 : options.formatError.penalty;
      if (paradigm === 'adaplan') state.stepsDoneByTurn.push(stepsDone(agent, state));
      state.turns.push({
        index: turn,
        observation: state.current.observation,
        admissibleActions: state.current.admissibleActions,
        generations: state.generations,
        thought: parsed.thought,
        action: parsed.action,
        formatError: state.formatError,
        envReward: result?.reward ?? 0,
        valid: result?.info.valid ?? false,
        rewards: state.formatError === null ? {} : { format_penalty: penalty },
      });
      if (state.done) continue;
      if (state.formatError !== null && options.formatError.mode === 'terminate') {
        finish(state, 'format_error', turn);
        continue;
      }
      if (parsed.action === null) {
        state.history.push({
          assistant: parsed.text,
          user: `Your answer could not be read (${state.formatError}). ${template.observation({
            observation: state.current.observation,
            admissibleActions: state.current.admissibleActions,
          })}`,
        });
        continue;
      }
      if (result === null) {
        state.envError = `env ${state.slot} was inactive when stepped`;
        finish(state, 'env_error', turn);
        continue;
      }
      state.current = result;
      state.stepChecks?.acted(turn);
      state.observations.push(result.observation);
      state.view?.observe(parsed.action, result.observation);
      const next = state.plan?.[state.executedSteps];
      if (next !== undefined && options.planSteps?.executes(next, parsed.action, result.observation)) {
        state.executedSteps += 1;
      }
      state.history.push({
        assistant: parsed.text,
        user: template.observation({
          observation: result.observation,
          admissibleActions: result.admissibleActions,
        }),
      });
      if (result.info.error !== undefined) {
        state.envError = result.info.error;
        finish(state, 'env_error', turn);
      } else if (result.terminated || result.truncated) {
        finish(state, 'env_done', turn);
      }
    }
  }
  for (const state of slots) if (!state.done) finish(state, 'max_turns', options.maxTurns - 1);
  return {
    episodes: slots.map((state) => toEpisode(agent, config, template, state)),
    turnZero: slots.flatMap((state) => turnZeroEnd(state) ?? []),
  };
}

/** Why the episode of `state` ended at turn 0, where that points at the setup (the prompt, the env). */
function turnZeroEnd(state: Slot): TurnZeroEnd | undefined {
  const cause = state.endReason;
  if (state.endTurn !== 0) return undefined;
  if (cause !== 'context_overflow' && cause !== 'no_actions' && cause !== 'env_error') return undefined;
  return {
    cause,
    openingChars: state.initialObservation.length,
    ...(state.overflowPrompt === null ? {} : { prompt: state.overflowPrompt }),
    ...(state.envError === null ? {} : { envError: state.envError }),
  };
}

/**
 * The act answers of `requesters` chosen by look-ahead: `width` samples per episode in free text
 * (the first with the plain rollout's seed), the one constrained choice otherwise (its logprobs
 * rank the candidates). Each answer comes with the command the search chose to play.
 */
async function lookaheadAnswers(
  agent: Agent,
  vectorEnv: VectorEnv,
  config: z.output<typeof rolloutOptionsSchema>,
  search: LookaheadSearch,
  requesters: readonly Slot[],
  requests: readonly GenerateRequest[],
  turn: number,
): Promise<{ result: GenerateResult; searched: string | undefined }[]> {
  const { options, policy } = agent;
  if (!canCopyAt(vectorEnv)) throw new ConfigError('lookahead search needs a vector env with copyAt()');
  const choosing = options.actionSpace === 'choice';
  const samples = choosing ? 1 : search.width;
  const expanded = requests.flatMap((request) =>
    Array.from({ length: samples }, (_, sample) => ({
      ...request,
      seed: sampleSeed(request.seed ?? 0, sample),
    })),
  );
  const results = await callPolicy(policy, expanded, options.callTimeoutMs, 'act');
  const decisions: LookaheadDecision[] = requesters.map((state, at) => ({
    slot: state.slot,
    task: state.task,
    goal: state.goal,
    plan: state.plan,
    stepsDone: stepsDone(agent, state),
    current: state.current,
    proposals: results.slice(at * samples, at * samples + samples).map((result) => ({
      result,
      command: proposedCommand(agent, state.current.admissibleActions, result),
    })),
  }));
  const choices = await searchByLookahead({
    search,
    agent,
    vectorEnv,
    envId: config.envId,
    decisions,
    seed: mixSeed(config.seed, turn, 2),
    count: tokenCounterFor(policy),
    playout: rollout,
  });
  return choices.map((choice, at) => {
    addCompute(requesters[at]!.compute, choice.compute);
    return {
      result: decisions[at]!.proposals[choice.proposal]!.result,
      searched: choice.command ?? undefined,
    };
  });
}

/** The admissible command an act answer names, or null when it names none; nothing is recorded. */
function proposedCommand(agent: Agent, admissible: readonly string[], result: GenerateResult): string | null {
  if (agent.options.actionSpace === 'choice') return chosenCommand(agent.policy.name, admissible, result);
  const parsed = parseActOutput(result.text, {
    maxActionChars: agent.options.maxActionChars,
    maxPlanSteps: agent.options.maxPlanSteps,
  });
  return parsed.ok ? agent.options.actionMatcher.match(parsed.action, admissible).command : null;
}

/** The command a choice result names, checked against the choices it was given. */
function chosenCommand(policyName: string, choices: readonly string[], result: GenerateResult): string {
  const index = result.choiceIndex ?? choices.indexOf(result.text);
  if (choices[index] !== result.text) {
    throw new InvalidArgumentError(
      `policy "${policyName}" answered a choice among ${choices.length} admissible commands with ${JSON.stringify(result.text)}${result.choiceIndex === undefined ? '' : ` (choiceIndex ${result.choiceIndex})`}, which is not that choice; a policy must return one of the \`choices\` exactly`,
    );
  }
  return result.text;
}

/** Whether this turn of the slot is recorded: it is live, or generated something before it ended. */
function isRecorded(state: Slot): boolean {
  return !state.done || state.generations.length > 0;
}

const episodeIdOf = (state: Slot) => `${state.groupId}/${state.sampleIndex}`;

function finish(state: Slot, reason: EndReason, turn: number): void {
  state.done = true;
  state.endReason = reason;
  state.endTurn = turn;
}

function joinErrors(existing: string | null, added: string): string {
  return existing === null ? added : `${existing}; ${added}`;
}

function thoughtsOf(state: Slot): (string | null)[] {
  return state.turns.map((turn) => turn.thought);
}

/** Steps of the plan in force carried out so far: counted from the actions with a plan-step vocabulary, else the step tracker's reading. */
function stepsDone(agent: Agent, state: Slot): number {
  if (state.plan === null) return 0;
  if (agent.options.planSteps !== undefined) return state.executedSteps;
  return agent.options.stepTracker({ plan: state.plan, thoughts: thoughtsOf(state) });
}

type PromptFn = (state: Slot, request: string, maxTokens: number) => GenerateRequest['messages'];

/** Writes, chooses or revises the plan of every live AdaPlan episode that needs it this turn. */
async function planPhase(
  agent: Agent,
  template: PromptTemplate,
  config: z.output<typeof rolloutOptionsSchema>,
  live: Slot[],
  turn: number,
  prompt: PromptFn,
  bestOfN: BestOfNSearch | undefined,
): Promise<void> {
  const { options, policy } = agent;
  const source = options.planSource;
  const requests: GenerateRequest[] = [];
  const pending: { state: Slot; candidates: Plan[] | null; fixedSteps: number }[] = [];
  const sampling = {
    maxTokens: options.plan.maxTokens,
    temperature: options.plan.temperature,
    topP: options.plan.topP,
  };

  if (turn === 0 && source.kind === 'provided') {
    const provided = await Promise.all(
      live.map((state) =>
        source.provider({
          task: state.task,
          goal: state.goal,
          initialObservation: state.initialObservation,
          admissibleActions: state.current.admissibleActions,
        }),
      ),
    );
    for (const [index, state] of live.entries()) {
      const candidates = provided[index]!;
      if (candidates.length === 0 || candidates.some((plan) => plan.length === 0)) {
        throw new InvalidArgumentError(
          `the ${source.source} plan provider gave no usable plan for task "${state.task.taskId}"`,
        );
      }
      if (options.planSteps !== undefined) {
        const vocabulary = new Set(
          options.planSteps.steps({ goal: state.goal, observations: state.observations }),
        );
        const outside = candidates.flat().find((step) => !vocabulary.has(step));
        if (outside !== undefined) {
          throw new InvalidArgumentError(
            `the ${source.source} plan for task "${state.task.taskId}" has the step "${outside}", which the env's plan-step vocabulary cannot express; give plans in its steps or drop planSteps`,
          );
        }
      }
      if (candidates.length === 1) {
        adoptPlan(state, candidates[0]!, source.source, 0, turn);
        continue;
      }
      const messages = prompt(state, template.choiceRequest({ candidates }), options.plan.maxTokens);
      if (state.done) continue;
      pending.push({ state, candidates, fixedSteps: 0 });
      requests.push({
        kind: 'plan',
        messages,
        ...sampling,
        choices: candidates.map(planBlock),
        seed: mixSeed(config.seed, state.stream, turn, 0),
      });
    }
  } else if (options.planSteps !== undefined) {
    if (turn === 0 || revisionDue(options.revision, turn)) {
      await writeStepPlans(agent, template, config, live, turn, prompt, bestOfN);
    }
    return;
  } else {
    for (const state of live) {
      const initial = turn === 0;
      if (!initial && !revisionDue(options.revision, turn)) continue;
      const fixedSteps =
        state.plan === null ? 0 : options.stepTracker({ plan: state.plan, thoughts: thoughtsOf(state) });
      const request =
        state.plan === null
          ? template.planRequest()
          : template.revisionRequest({ plan: state.plan, fixedSteps });
      const messages = prompt(state, request, options.plan.maxTokens);
      if (state.done) continue;
      pending.push({ state, candidates: null, fixedSteps });
      requests.push({
        kind: 'plan',
        messages,
        ...sampling,
        stop: ['</global_plan>'],
        seed: mixSeed(config.seed, state.stream, turn, 0),
      });
    }
  }
  if (requests.length === 0) return;
  const count = tokenCounterFor(policy);
  const results =
    bestOfN === undefined
      ? await callPolicy(policy, requests, options.callTimeoutMs, 'plan')
      : await sampleBestPlans({
          search: bestOfN,
          policy,
          timeoutMs: options.callTimeoutMs,
          requests,
          candidateOf: (at, result) => {
            const parsed = parsePlanOutput(result.text, { maxPlanSteps: options.maxPlanSteps });
            const { state } = pending[at]!;
            return parsed.ok
              ? planCandidate(contextOf(state), parsed.steps, result, discardedTokens(result, count))
              : null;
          },
          computes: pending.map(({ state }) => state.compute),
          count,
        });
  for (const [index, { state, candidates, fixedSteps }] of pending.entries()) {
    const result = results[index]!;
    state.generations.push(toGeneration('plan', result));
    if (candidates !== null) {
      const chosen = result.choiceIndex ?? candidates.map(planBlock).indexOf(result.text);
      const plan = candidates[chosen];
      if (plan === undefined) {
        throw new InvalidArgumentError(
          `policy "${policy.name}" answered a plan choice with neither a valid choiceIndex nor one of the choices`,
        );
      }
      adoptPlan(state, plan, source.kind === 'provided' ? source.source : 'policy', 0, turn);
      continue;
    }
    const parsed = parsePlanOutput(result.text, { maxPlanSteps: options.maxPlanSteps });
    if (!parsed.ok) {
      state.formatError = `plan ${parsed.code}: ${parsed.message}`;
      continue;
    }
    if (state.plan === null) {
      adoptPlan(state, parsed.steps, 'policy', 0, turn);
      continue;
    }
    const fixed = state.plan.slice(0, fixedSteps);
    if (fixed.some((step, position) => parsed.steps[position] !== step)) state.fixedStepEdits += 1;
    const revised = [...fixed, ...parsed.steps.slice(fixedSteps)];
    if (revised.length > 0 && revised.join('\n') !== state.plan.join('\n')) {
      adoptPlan(state, revised, 'policy', fixedSteps, turn);
    }
  }
}

/**
 * Writes the plans of `writing` through the plan-step vocabulary: one batched choice call per trie
 * edge for all drafts still open. A revision keeps the executed steps and writes the rest anew.
 */
async function writeStepPlans(
  agent: Agent,
  template: PromptTemplate,
  config: z.output<typeof rolloutOptionsSchema>,
  writing: Slot[],
  turn: number,
  prompt: PromptFn,
  bestOfN: BestOfNSearch | undefined,
): Promise<void> {
  const { options, policy } = agent;
  const vocabulary = options.planSteps!;
  // Best-of-N drafts N plans per episode side by side, sample 0 with the plain rollout's seeds.
  const samples = bestOfN?.n ?? 1;
  const drafts = writing.flatMap((state) => {
    const fixed = state.plan === null ? [] : state.plan.slice(0, state.executedSteps);
    const steps = vocabulary.steps({ goal: state.goal, observations: state.observations });
    if (steps.length === 0) state.emptyVocabularies += 1;
    const request =
      state.plan === null
        ? template.planRequest()
        : template.revisionRequest({ plan: state.plan, fixedSteps: fixed.length });
    const trie = stepTrie(steps);
    return Array.from({ length: samples }, (_, sample) => ({
      state,
      sample,
      request,
      draft: new StepPlanDraft(trie, fixed, options.maxPlanSteps),
      generations: [] as Generation[],
      last: undefined as GenerateResult | undefined,
    }));
  });
  for (let edge = 0; ; edge += 1) {
    const open = drafts.filter(({ state, draft }) => !state.done && !draft.done);
    if (open.length === 0) break;
    const requests: GenerateRequest[] = [];
    const asking: typeof open = [];
    for (const entry of open) {
      const choices = entry.draft.choices();
      const messages = prompt(
        entry.state,
        `${entry.request}\n${entry.draft.text()}`,
        choiceReserve(policy, choices),
      );
      if (entry.state.done) continue;
      asking.push(entry);
      requests.push({
        kind: 'plan',
        messages,
        maxTokens: options.plan.maxTokens,
        // Samples after the first draw at the search's temperature (see best-of-n.ts).
        temperature:
          entry.sample === 0 || bestOfN === undefined ? options.plan.temperature : bestOfN.temperature,
        topP: options.plan.topP,
        choices,
        seed: sampleSeed(mixSeed(config.seed, entry.state.stream, turn, 0, edge), entry.sample),
      });
    }
    if (requests.length === 0) break;
    const results = await callPolicy(policy, requests, options.callTimeoutMs, 'plan step');
    for (const [index, entry] of asking.entries()) {
      const result = results[index]!;
      entry.generations.push(toGeneration('plan', result));
      entry.last = result;
      entry.draft.choose(chosenCommand(policy.name, requests[index]!.choices!, result));
    }
  }
  const chosen = bestOfN === undefined ? drafts : await bestDrafts(bestOfN, drafts, tokenCounterFor(policy));
  for (const { state, draft, generations } of chosen) {
    state.generations.push(...generations);
    if (draft.steps.length === 0) continue;
    const changed = state.plan === null || draft.steps.join('\n') !== state.plan.join('\n');
    if (changed) adoptPlan(state, draft.steps, 'policy', draft.fixed.length, turn);
  }
}

/** Per episode, the best of its drafts by the search's scorer; the others' tokens go to its compute. */
async function bestDrafts<
  D extends {
    state: Slot;
    draft: StepPlanDraft;
    generations: Generation[];
    last: GenerateResult | undefined;
  },
>(search: BestOfNSearch, drafts: readonly D[], count: TokenCounter): Promise<D[]> {
  const byEpisode = new Map<Slot, D[]>();
  for (const entry of drafts) byEpisode.set(entry.state, [...(byEpisode.get(entry.state) ?? []), entry]);
  const groups = [...byEpisode.values()];
  const written = (entry: D) =>
    entry.generations.reduce((sum, generation) => sum + generatedTokensOf(generation, count), 0);
  const best = await pickBestPlans(
    search,
    groups.map((group) =>
      group.map((entry) =>
        entry.draft.steps.length === 0 || entry.last === undefined
          ? null
          : planCandidate(contextOf(entry.state), entry.draft.steps, entry.last, written(entry)),
      ),
    ),
    groups.map((group) => group[0]!.state.compute),
  );
  return groups.map((group, at) => {
    for (const [index, entry] of group.entries()) {
      if (index !== best[at]) group[0]!.state.compute.generatedTokens += written(entry);
    }
    return group[best[at]!]!;
  });
}

/** What a plan candidate of this episode is written for. */
const contextOf = (state: Slot) => ({
  task: state.task,
  goal: state.goal,
  observation: state.current.observation,
});

function adoptPlan(
  state: Slot,
  steps: Plan,
  source: PlanRevision['source'],
  fixedSteps: number,
  turn: number,
): void {
  state.plan = steps;
  state.planHistory.push({ turn, steps, source, fixedSteps });
}

function toEpisode(
  agent: Agent,
  config: z.output<typeof rolloutOptionsSchema>,
  template: PromptTemplate,
  state: Slot,
): Episode {
  const last = state.current;
  const formatPenalty = state.turns.reduce((sum, turn) => sum + (turn.rewards.format_penalty ?? 0), 0);
  const metadata: Record<string, unknown> = {
    endReason: state.endReason,
    policy: agent.policy.name,
    actionSpace: agent.options.actionSpace,
    promptTemplate: state.view === null ? template.id : 'view',
    samplingSeed: config.seed,
    contextCuts: state.contextCuts,
    omittedTurnsMax: state.omittedTurnsMax,
    actionMatches: state.actionRules,
    finalObservation: last.observation,
  };
  if (agent.paradigm === 'adaplan') {
    metadata.fixedStepEdits = state.fixedStepEdits;
    metadata.stepsDoneByTurn = state.stepsDoneByTurn;
  }
  if (agent.options.planSteps !== undefined) {
    metadata.planKind = 'steps';
    metadata.executedSteps = state.executedSteps;
    if (state.emptyVocabularies > 0) metadata.emptyPlanVocabularies = state.emptyVocabularies;
  }
  if (state.envError !== null) metadata.envError = state.envError;
  const count = tokenCounterFor(agent.policy);
  const compute = { ...state.compute };
  addCompute(compute, {
    generatedTokens: state.turns.reduce(
      (sum, turn) => sum + turn.generations.reduce((inner, g) => inner + generatedTokensOf(g, count), 0),
      0,
    ),
    envSteps: state.turns.filter((turn) => turn.action !== null).length,
  });
  metadata.compute = compute;
  if (config.search !== undefined) {
    metadata.search = { kind: config.search.kind, overriddenTurns: state.searchOverrides };
  }
  const taskType = last.info.taskType ?? state.task.taskType;
  return {
    formatVersion: EPISODE_FORMAT_VERSION,
    id: episodeIdOf(state),
    envId: config.envId,
    taskId: state.task.taskId,
    split: state.task.split,
    seed: state.task.seed,
    groupId: state.groupId,
    sampleIndex: state.sampleIndex,
    paradigm: agent.paradigm,
    task: state.goal,
    ...(taskType === undefined ? {} : { taskType }),
    initialObservation: state.initialObservation,
    turns: state.turns,
    planHistory: state.planHistory,
    won: last.info.won,
    terminated: state.endReason === 'env_done' && last.terminated,
    truncated: !(state.endReason === 'env_done' && last.terminated),
    envReturn: state.turns.reduce((sum, turn) => sum + turn.envReward, 0),
    rewardComponents: { format_penalty: formatPenalty },
    // An episode over before its first turn was checked against no plan.
    ...(config.recordStepChecks
      ? { stepChecks: state.stepChecks?.record() ?? { passed: [], planSteps: 0 } }
      : {}),
    metadata,
  };
}
