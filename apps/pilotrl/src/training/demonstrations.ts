// Oracle demonstrations for the SFT warm start and the tokenizer corpus. The agent itself runs on
// each task with a policy that answers from the task's oracle solution, so every demonstration
// is a prompt exactly as the agent renders it (template, history window, context budget) paired
// with the answer an expert would give: in the choice action space the oracle's commands (and plan)
// replayed as a script, in free text the oracle's plan and thought-and-action replies.

import {
  type Agent,
  type AgentOptions,
  createAdaPlanAgent,
  createReActAgent,
  createVectorEnv,
  planBlock,
  replayScripts,
  rollout,
  type Script,
  ScriptCutShortError,
  type ScriptReplay,
} from '@pilotrl/agent';
import {
  type ChatMessage,
  ConfigError,
  type Demonstrator,
  type GenerateRequest,
  type GenerateResult,
  type OracleSolution,
  type Policy,
  type TaskRef,
  type VectorEnv,
} from '@pilotrl/core';
import { alignActionsToPlan } from '@pilotrl/rewards';
import { type EnvProvider, oracleSolution } from '../plugins/registry';

export interface Demonstration {
  messages: ChatMessage[];
  reply: string;
  kind: 'plan' | 'act';
  taskId: string;
}

/**
 * The plan step (1-based) each oracle action carries out, by `@pilotrl/rewards`' alignment of
 * actions to plan clauses; an action that fits no clause continues the step before it.
 */
export function stepsOfActions(solution: OracleSolution): number[] {
  const { clauses, clauseOf } = alignActionsToPlan(solution.plan, solution.actions);
  let current = 1;
  return clauseOf.map((clause) => {
    if (clause >= 0) current = clauses[clause]!.step + 1;
    return current;
  });
}

export function actReply(solution: OracleSolution, turn: number, paradigm: 'adaplan' | 'react'): string {
  const index = Math.min(turn, solution.actions.length - 1);
  const step = stepsOfActions(solution)[index]!;
  // AdaPlan thoughts name the plan step in progress; ReAct has no plan, so its thought is the sub-goal.
  const thought = paradigm === 'adaplan' ? `Step ${step}.` : solution.plan[step - 1]!;
  return `<thought>${thought}</thought><action>${solution.actions[index]}</action>`;
}

/** A policy that plays one oracle solution: the plan when asked for a plan, the next action otherwise. */
class OraclePolicy implements Policy {
  readonly name = 'oracle';
  readonly version = 0;
  solution: OracleSolution | undefined;
  turn = 0;
  readonly transcript: { messages: ChatMessage[]; reply: string; kind: 'plan' | 'act' }[] = [];

  constructor(
    private readonly paradigm: 'adaplan' | 'react',
    readonly countTokens?: (text: string) => number,
  ) {}

  async generate(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    return requests.map((request) => {
      const solution = this.solution!;
      const kind = request.kind ?? 'act';
      const reply =
        kind === 'plan' ? planBlock(solution.plan) : actReply(solution, this.turn++, this.paradigm);
      this.transcript.push({ messages: [...request.messages], reply, kind });
      return {
        text: reply,
        tokenIds: [],
        logprobs: [],
        promptTokenIds: [],
        finishReason: 'stop' as const,
        policyVersion: 0,
      };
    });
  }
}

/** What the oracle plays on and how the agent renders it. */
export interface DemonstrationSetup {
  provider: EnvProvider;
  tasks: readonly TaskRef[];
  paradigm: 'adaplan' | 'react';
  agentOptions: AgentOptions;
  envOptions: Record<string, unknown>;
  /** The policy's token counts (text, choices), so that prompts are fitted to the context as in training. */
  tokens?: Pick<Policy, 'countTokens' | 'choiceTokens'>;
  /** Plays each oracle solution from what an agent sees; the oracle's own is kept where it cannot within the agent's turns. */
  demonstrator?: Demonstrator;
  /** The demonstrator carries out a plan drawn among the oracle's and its alternatives (`sft.plans`). */
  alternativePlans?: boolean;
}

/**
 * The solution to demonstrate on `task`: the demonstrator's play of the oracle's, where it fits in
 * `maxTurns`; undefined for a task the oracle cannot solve.
 */
async function solutionFor(
  setup: DemonstrationSetup,
  task: TaskRef,
  maxTurns: number,
): Promise<OracleSolution | undefined> {
  const solution = await oracleSolution(setup.provider.tasks, task);
  if (solution === undefined) return undefined;
  const played = await setup.demonstrator?.demonstrate(task, solution, {
    alternativePlans: setup.alternativePlans === true,
  });
  return played !== undefined && played.actions.length <= maxTurns ? played : solution;
}

/** Plays `tasks` with the oracle through the agent and returns every (prompt, expert answer) pair. */
export async function oracleDemonstrations(
  setup: DemonstrationSetup,
): Promise<{ demonstrations: Demonstration[]; won: number }> {
  const { provider, tasks, paradigm, agentOptions, envOptions, tokens } = setup;
  if (provider.tasks.oracle === undefined) {
    throw new ConfigError(
      `env "${provider.envId}" has no oracle, so it cannot give SFT demonstrations; remove \`sft\``,
    );
  }
  if (agentOptions.actionSpace === 'choice') {
    return scriptedDemonstrations(setup);
  }
  const policy = new OraclePolicy(paradigm, tokens?.countTokens?.bind(tokens));
  const agent: Agent =
    paradigm === 'adaplan'
      ? createAdaPlanAgent(policy, agentOptions)
      : createReActAgent(policy, agentOptions);
  const vectorEnv = createVectorEnv(() => provider.createEnv(envOptions), { size: 1 });
  const demonstrations: Demonstration[] = [];
  let won = 0;
  try {
    for (const task of tasks) {
      const solution = await solutionFor(setup, task, agent.options.maxTurns);
      if (solution === undefined) continue;
      policy.solution = solution;
      policy.turn = 0;
      policy.transcript.length = 0;
      const [episode] = await rollout(agent, vectorEnv, {
        envId: provider.envId,
        tasks: [task],
        groupSize: 1,
        runId: 'demo',
      });
      // Only winning demonstrations teach the task; a loss means the agent's budget cut the oracle short.
      if (!episode?.won) continue;
      won++;
      for (const entry of policy.transcript) demonstrations.push({ ...entry, taskId: task.taskId });
    }
  } finally {
    await vectorEnv.close();
  }
  return { demonstrations, won };
}

/** Choice-action demonstrations: each oracle solution replayed as a script (its plan with it). */
async function scriptedDemonstrations(
  setup: DemonstrationSetup,
): Promise<{ demonstrations: Demonstration[]; won: number }> {
  const { provider, tasks, paradigm, agentOptions, envOptions, tokens } = setup;
  // The replay plays the script; the agent's policy only counts tokens, to fit prompts as in training.
  const counter: Policy = {
    name: 'token-counter',
    version: 0,
    generate: async () => {
      throw new Error('the token counter of a scripted replay generates nothing');
    },
    ...(tokens?.countTokens === undefined ? {} : { countTokens: tokens.countTokens.bind(tokens) }),
    ...(tokens?.choiceTokens === undefined ? {} : { choiceTokens: tokens.choiceTokens.bind(tokens) }),
  };
  const agent =
    paradigm === 'adaplan'
      ? createAdaPlanAgent(counter, agentOptions)
      : createReActAgent(counter, agentOptions);
  const vectorEnv = createVectorEnv(() => provider.createEnv(envOptions), { size: 1 });
  const maxTurns = agent.options.maxTurns;
  const demonstrations: Demonstration[] = [];
  let won = 0;
  try {
    for (const task of tasks) {
      const solution = await solutionFor(setup, task, maxTurns);
      if (solution === undefined) continue;
      // A solution longer than the agent's turns would be cut short; it teaches nothing.
      if (solution.actions.length > maxTurns) continue;
      const plan = paradigm === 'adaplan' && agentOptions.planSteps === undefined ? solution.plan : undefined;
      const script = {
        task,
        commands: solution.actions,
        goal: null,
        ...(plan === undefined ? {} : { plan }),
      };
      const replay = await replayWhole(agent, vectorEnv, provider.envId, script);
      if (replay === undefined || !replay.won) continue;
      won++;
      for (const example of replay.examples) {
        demonstrations.push({
          messages: example.prompt,
          reply: example.response,
          kind: example.kind,
          taskId: task.taskId,
        });
      }
    }
  } finally {
    await vectorEnv.close();
  }
  return { demonstrations, won };
}

/**
 * A script replayed through the agent, or undefined where the context budget or the step limit
 * ended the episode before its last command (such a replay would teach a cut-off game).
 */
export async function replayWhole(
  agent: Parameters<typeof replayScripts>[0],
  vectorEnv: VectorEnv,
  envId: string,
  script: Script,
): Promise<ScriptReplay | undefined> {
  try {
    const [replay] = await replayScripts(agent, vectorEnv, envId, [script]);
    return replay;
  } catch (error) {
    if (ScriptCutShortError.isInstance(error)) return undefined;
    throw error;
  }
}
