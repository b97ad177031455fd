// Fixed command sequences played through the rollout engine, for demonstrations and relabelled
// episodes: every prompt is the one the agent would have been shown (same template or view, same
// goal, same plan handling), so what is imitated matches what the policy will see when it acts.
import {
  type ChatMessage,
  type GenerateRequest,
  type GenerateResult,
  InvalidArgumentError,
  type Policy,
  type TaskRef,
  type VectorEnv,
} from '@pilotrl/core';
import type { Agent } from './agent';
import { rollout } from './rollout';

/** One decision to imitate: the prompt as shown and the command that was played. */
export interface CommandExample {
  prompt: ChatMessage[];
  response: string;
}

/** A task, the commands to play in it, and the goal to state instead of the env's (or null). */
export interface Script {
  task: TaskRef;
  commands: readonly string[];
  goal: string | null;
}

export interface ScriptReplay {
  examples: CommandExample[];
  /** Whether the env counted the episode as won (a hindsight goal's replay usually is not). */
  won: boolean;
}

/** A policy that answers each choice request with the next command of its script. */
function scriptedPolicy(commands: readonly string[], examples: CommandExample[]): Policy {
  return {
    name: 'script',
    version: 0,
    async generate(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
      return requests.map((request) => {
        if (request.choices === undefined) {
          throw new InvalidArgumentError(
            'a script plays commands only; it cannot answer a plan request (use a ReAct agent, or provided plans)',
          );
        }
        const command = commands[examples.length];
        const choices = request.choices;
        const choiceIndex = command === undefined ? -1 : choices.indexOf(command);
        if (command === undefined || choiceIndex < 0) {
          throw new InvalidArgumentError(
            command === undefined
              ? `the script of ${commands.length} commands was asked for command ${examples.length + 1}`
              : `scripted command ${examples.length + 1} "${command}" is not admissible there (admissible: ${choices.join(' | ')})`,
          );
        }
        examples.push({ prompt: request.messages.map((m) => ({ ...m })), response: command });
        return {
          text: command,
          tokenIds: [],
          logprobs: [],
          promptTokenIds: [],
          finishReason: 'choice',
          choiceIndex,
          policyVersion: 0,
        };
      });
    },
  };
}

/**
 * Plays each script through `rollout` with `agent`'s prompting in the `choice` action space and
 * returns the (prompt, command) pairs. `vectorEnv` is reset once per script; one env is enough.
 * Throws where a command is not admissible when its turn comes.
 */
export async function replayScripts(
  agent: Pick<Agent, 'paradigm' | 'options'>,
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
    const scripted: Agent = {
      paradigm: agent.paradigm,
      policy: scriptedPolicy(script.commands, examples),
      options: { ...agent.options, actionSpace: 'choice', maxTurns: script.commands.length },
    };
    const [episode] = await rollout(scripted, vectorEnv, {
      envId,
      tasks: [script.task],
      goals: [script.goal],
      runId: 'script',
    });
    if (examples.length !== script.commands.length) {
      throw new InvalidArgumentError(
        `the episode of task "${script.task.taskId}" ended (${String(episode!.metadata.endReason)}) after ${examples.length} of its ${script.commands.length} scripted commands`,
      );
    }
    replays.push({ examples, won: episode!.won });
  }
  return replays;
}
