// Oracle demonstrations for the SFT warm start and the tokenizer corpus. The agent itself runs on
// each task with a policy that answers from the task's oracle solution, so every demonstration
// is a prompt exactly as the agent renders it (template, history window, context budget) paired
// with the answer an expert would give.

import { type Agent, type AgentOptions, createAdaPlanAgent, createReActAgent, rollout } from '@pilotrl/agent';
import {
  type ChatMessage,
  ConfigError,
  type GenerateRequest,
  type GenerateResult,
  type OracleSolution,
  type Policy,
  type TaskRef,
} from '@pilotrl/core';
import { createVectorEnv } from '@pilotrl/env-testkit';
import { alignActionsToPlan } from '@pilotrl/rewards';
import type { EnvProvider } from './env-providers';

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

export function planReply(solution: OracleSolution): string {
  return `<global_plan>\n${solution.plan.map((step, i) => `Step ${i + 1}: ${step}`).join('\n')}\n</global_plan>`;
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
      if (request.choices !== undefined) {
        // The choice action space: the reply is the oracle's next command itself.
        const command = solution.actions[Math.min(this.turn++, solution.actions.length - 1)]!;
        const choiceIndex = request.choices.indexOf(command);
        if (choiceIndex < 0) {
          throw new ConfigError(
            `the oracle's command "${command}" is not among the env's admissible commands; this env cannot give choice-action demonstrations`,
          );
        }
        this.transcript.push({ messages: [...request.messages], reply: command, kind: 'act' });
        return {
          text: command,
          tokenIds: [],
          logprobs: [],
          promptTokenIds: [],
          finishReason: 'choice' as const,
          choiceIndex,
          policyVersion: 0,
        };
      }
      const kind = (request.stop ?? []).includes('</global_plan>') ? 'plan' : 'act';
      const reply = kind === 'plan' ? planReply(solution) : actReply(solution, this.turn++, this.paradigm);
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

/** Plays `tasks` with the oracle through the agent and returns every (prompt, expert answer) pair. */
export async function oracleDemonstrations(
  provider: EnvProvider,
  tasks: readonly TaskRef[],
  paradigm: 'adaplan' | 'react',
  agentOptions: AgentOptions,
  envOptions: Record<string, unknown>,
  countTokens?: (text: string) => number,
): Promise<{ demonstrations: Demonstration[]; won: number }> {
  const oracle = provider.tasks.oracle?.bind(provider.tasks);
  if (oracle === undefined) {
    throw new ConfigError(
      `env "${provider.envId}" has no oracle, so it cannot give SFT demonstrations; remove \`sft\``,
    );
  }
  const policy = new OraclePolicy(paradigm, countTokens);
  const agent: Agent =
    paradigm === 'adaplan'
      ? createAdaPlanAgent(policy, agentOptions)
      : createReActAgent(policy, agentOptions);
  const vectorEnv = createVectorEnv(() => provider.createEnv(envOptions), { size: 1 });
  const demonstrations: Demonstration[] = [];
  let won = 0;
  try {
    for (const task of tasks) {
      policy.solution = await oracle(task);
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
