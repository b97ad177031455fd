// Fixed command sequences played through the rollout engine, for demonstrations and relabelled
// episodes: every prompt is the one the agent would have been shown (same template or view, same
// goal, same plan handling), so what is imitated matches what the policy will see when it acts.
// An AdaPlan agent with a plan-step vocabulary gets the script's plan too: provided, where the
// agent follows provided plans, else written through the vocabulary's trie, edge by edge, with the
// plan-writing choices kept as examples beside the commands.
import {
  type ChatMessage,
  type GenerateRequest,
  type GenerateResult,
  InvalidArgumentError,
  PilotRLError,
  type Plan,
  type Policy,
  type TaskRef,
  type VectorEnv,
} from '@pilotrl/core';
import type { Agent, PlanProvider } from './agent';
import { planBlock } from './prompt-templates';
import { rollout } from './rollout';
import { isPlanStepChoice, openStepNumber, PLAN_END } from './step-trie';

/** One decision to imitate: the prompt as shown and the answer given (a command, or a plan-writing choice). */
export interface CommandExample {
  prompt: ChatMessage[];
  response: string;
  kind: 'plan' | 'act';
}

/**
 * A task, the commands to play in it, and the goal to state instead of the env's (or null). `plan`
 * (AdaPlan agents) is the plan to write or follow; absent, the plan-step vocabulary's `planOf(commands)`.
 */
export interface Script {
  task: TaskRef;
  commands: readonly string[];
  goal: string | null;
  plan?: Plan;
}

export interface ScriptReplay {
  examples: CommandExample[];
  /** Whether the env counted the episode as won (a hindsight goal's replay usually is not). */
  won: boolean;
}

/**
 * The next edge towards `plan` in a plan draft: `partial` is the open step's text chosen so far,
 * `stepNumber` the open step's number. Throws where the draft cannot write the plan.
 */
export function planStepChoice(
  plan: Plan,
  stepNumber: number,
  partial: string,
  choices: readonly string[],
): string {
  const target = plan[stepNumber - 1];
  if (target === undefined) {
    if (partial === '' && choices.includes(PLAN_END)) return PLAN_END;
    throw new InvalidArgumentError(
      `the plan of ${plan.length} steps cannot be written here: the draft asks for step ${stepNumber} (choices: ${choices.join(' | ')})`,
    );
  }
  const line = `${target}\n`;
  const choice = choices.find((c) => c !== PLAN_END && line.startsWith(partial + c));
  if (choice === undefined) {
    throw new InvalidArgumentError(
      `plan step ${stepNumber} "${target}" is not in the env's plan-step vocabulary here (after "${partial}" the choices are ${choices.join(' | ')})`,
    );
  }
  return choice;
}

/**
 * A policy that answers each command choice with the next command of its script, each plan
 * draft's choice with the next edge of `plan`, and a free-text plan request with `plan` whole.
 */
function scriptedPolicy(
  commands: readonly string[],
  plan: Plan | undefined,
  examples: CommandExample[],
): Policy {
  let played = 0;
  let partial = '';
  /** Records the example and answers with `text`: a choice among `choices`, or free text without them. */
  const answer = (
    request: GenerateRequest,
    choices: readonly string[] | undefined,
    text: string,
    kind: 'plan' | 'act',
  ): GenerateResult => {
    examples.push({ prompt: request.messages.map((m) => ({ ...m })), response: text, kind });
    const base = { text, tokenIds: [], logprobs: [], promptTokenIds: [], policyVersion: 0 };
    return choices === undefined
      ? { ...base, finishReason: 'stop' }
      : { ...base, finishReason: 'choice', choiceIndex: choices.indexOf(text) };
  };
  return {
    name: 'script',
    version: 0,
    async generate(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
      return requests.map((request) => {
        const choices = request.choices;
        if (choices === undefined) {
          if (plan === undefined || request.kind !== 'plan') {
            throw new InvalidArgumentError(
              'a script without a plan answers choices only; it cannot write a free-text plan (give the script a plan, or use a ReAct agent, provided plans or a plan-step vocabulary)',
            );
          }
          return answer(request, undefined, planBlock(plan), 'plan');
        }
        if (plan !== undefined && choices.includes(planBlock(plan))) {
          // A choice among provided candidate plans: the script's is the one it follows.
          return answer(request, choices, planBlock(plan), 'plan');
        }
        if (isPlanStepChoice(choices)) {
          if (plan === undefined) {
            throw new InvalidArgumentError('the agent writes plan steps, but the script has no plan');
          }
          const stepNumber = openStepNumber(request.messages.at(-1)?.content ?? '') ?? 1;
          const choice = planStepChoice(plan, stepNumber, partial, choices);
          partial = choice.endsWith('\n') || choice === PLAN_END ? '' : partial + choice;
          return answer(request, choices, choice, 'plan');
        }
        const command = commands[played];
        if (command === undefined || !choices.includes(command)) {
          throw new InvalidArgumentError(
            command === undefined
              ? `the script of ${commands.length} commands was asked for command ${played + 1}`
              : `scripted command ${played + 1} "${command}" is not admissible there (admissible: ${choices.join(' | ')})`,
          );
        }
        played += 1;
        return answer(request, choices, command, 'act');
      });
    },
  };
}

/**
 * The episode of a script ended before its last command (the context budget, the step limit, or
 * the env's end): the script is fine but does not fit the agent, unlike an inadmissible command.
 */
export class ScriptCutShortError extends PilotRLError {
  static override readonly errorName = 'ScriptCutShortError';
}

/**
 * Plays each script through `rollout` with `agent`'s prompting in the `choice` action space and
 * returns the (prompt, answer) pairs: commands, and plan-writing choices where the agent writes
 * plan steps. `vectorEnv` is reset once per script; one env is enough. Throws where a command is
 * not admissible when its turn comes, or a plan step not in the vocabulary; a
 * `ScriptCutShortError` where the episode ends before the last command. The agent's policy,
 * when given, only counts tokens (text and choices), so that prompts are fitted to the context as
 * in its rollouts.
 */
export async function replayScripts(
  agent: Pick<Agent, 'paradigm' | 'options'> & { policy?: Pick<Policy, 'countTokens' | 'choiceTokens'> },
  vectorEnv: VectorEnv,
  envId: string,
  scripts: readonly Script[],
): Promise<ScriptReplay[]> {
  const replays: ScriptReplay[] = [];
  for (const script of scripts) {
    if (script.commands.length === 0) {
      replays.push({ examples: [], won: false });
      continue;
    }
    const examples: CommandExample[] = [];
    const plan = agent.paradigm === 'adaplan' ? scriptPlan(agent, script) : undefined;
    const planSource = agent.options.planSource;
    const policy = scriptedPolicy(script.commands, plan, examples);
    const { countTokens, choiceTokens } = agent.policy ?? {};
    const scripted: Agent = {
      paradigm: agent.paradigm,
      policy: {
        ...policy,
        ...(countTokens === undefined
          ? {}
          : { countTokens: (text: string) => countTokens.call(agent.policy, text) }),
        ...(choiceTokens === undefined
          ? {}
          : { choiceTokens: (choices: readonly string[]) => choiceTokens.call(agent.policy, choices) }),
      },
      options: {
        ...agent.options,
        actionSpace: 'choice',
        maxTurns: script.commands.length,
        ...(planSource.kind === 'provided' && plan !== undefined
          ? { planSource: { ...planSource, provider: candidatesWith(planSource.provider, plan) } }
          : {}),
      },
    };
    const played = () => examples.filter((example) => example.kind === 'act').length;
    const [episode] = await rollout(
      scripted,
      vectorEnv,
      { envId, tasks: [script.task], goals: [script.goal], runId: 'script' },
      // A script cut short is the error below, which says why the episode ended.
      { onTurnZeroEnds: () => {} },
    );
    if (played() !== script.commands.length) {
      throw new ScriptCutShortError(
        `the episode of task "${script.task.taskId}" ended (${String(episode!.metadata.endReason)}) after ${played()} of its ${script.commands.length} scripted commands`,
      );
    }
    replays.push({ examples, won: episode!.won });
  }
  return replays;
}

/**
 * The provider's candidates where they include `plan` (the replay then picks it among them, as the
 * policy did), else `plan` alone.
 */
function candidatesWith(provider: PlanProvider, plan: Plan): PlanProvider {
  const block = planBlock(plan);
  return async (input) => {
    const candidates = await provider(input);
    return candidates.some((candidate) => planBlock(candidate) === block) ? candidates : [plan];
  };
}

/** The plan an AdaPlan script writes or follows: its own, else the vocabulary's plan of its commands. */
function scriptPlan(agent: Pick<Agent, 'options'>, script: Script): Plan | undefined {
  if (script.plan !== undefined) return script.plan;
  const planOf = agent.options.planSteps?.planOf;
  if (planOf === undefined) return undefined;
  const plan = planOf(script.commands);
  if (plan.length === 0) {
    throw new InvalidArgumentError(
      `the commands of task "${script.task.taskId}" carry out no step of the env's plan-step vocabulary, so they have no plan`,
    );
  }
  return plan;
}
