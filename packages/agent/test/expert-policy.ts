// A scripted expert for rollout tests: it recognises each task from the opening observation in
// the prompt and answers with the env oracle's plan and actions, one action per turn.
import type {
  OracleSolution,
  Policy,
  ResolvedGenerateRequest,
  TaskRef,
  TaskSource,
  TextEnv,
} from '@pilotrl/core';
import { createScriptedPolicy, type ScriptedPolicy } from '@pilotrl/env-testkit/test';
import { planBlock } from '../src/prompt-templates';

export interface Expert {
  policy: ScriptedPolicy;
  /** Batch size of every `generate` call, in order. */
  calls: number[];
  solutions: Map<string, OracleSolution>;
}

export interface ExpertOptions {
  /** Rewrites the reply before it is returned (to inject malformed output). */
  edit?: (reply: string, info: { taskId: string; step: number; kind: 'plan' | 'act' | 'choice' }) => string;
  tokens?: 'bytes' | 'none';
}

export async function solutionsFor(
  source: TaskSource,
  makeEnv: () => TextEnv,
  tasks: readonly TaskRef[],
): Promise<Map<string, { solution: OracleSolution; opening: string }>> {
  const table = new Map<string, { solution: OracleSolution; opening: string }>();
  for (const task of tasks) {
    const opening = (await makeEnv().reset({ seed: task.seed, taskId: task.taskId })).observation;
    table.set(task.taskId, { solution: await source.oracle!(task), opening });
  }
  return table;
}

export async function createExpert(
  source: TaskSource,
  makeEnv: () => TextEnv,
  tasks: readonly TaskRef[],
  options: ExpertOptions = {},
): Promise<Expert> {
  const table = await solutionsFor(source, makeEnv, tasks);
  const findTask = (request: ResolvedGenerateRequest) => {
    const intro = request.messages[1]?.content ?? '';
    for (const [taskId, entry] of table) if (intro.includes(entry.opening)) return { taskId, ...entry };
    throw new Error('expert: the prompt names no known task');
  };
  const script = (request: ResolvedGenerateRequest) => {
    const { taskId, solution } = findTask(request);
    const step = request.messages.filter((message) => message.role === 'assistant').length;
    const edit = options.edit ?? ((reply: string) => reply);
    if (request.choices !== undefined)
      return edit(request.choices[request.choices.length - 1]!, { taskId, step, kind: 'choice' });
    if (request.kind === 'plan') return edit(planBlock(solution.plan), { taskId, step, kind: 'plan' });
    const action = solution.actions[step] ?? solution.actions[solution.actions.length - 1]!;
    return edit(
      `<thought>Step ${Math.min(step + 1, solution.plan.length)}: keep going.</thought><action>${action}</action>`,
      {
        taskId,
        step,
        kind: 'act',
      },
    );
  };
  const policy = createScriptedPolicy(script, {
    name: 'expert',
    version: 3,
    tokens: options.tokens ?? 'bytes',
  });
  const calls: number[] = [];
  const generate = policy.generate.bind(policy);
  const counted: ScriptedPolicy = Object.assign(Object.create(policy) as ScriptedPolicy, {
    generate: (
      requests: Parameters<Policy['generate']>[0],
      callOptions?: Parameters<Policy['generate']>[1],
    ) => {
      calls.push(requests.length);
      return generate(requests, callOptions);
    },
  });
  const solutions = new Map([...table].map(([taskId, entry]) => [taskId, entry.solution]));
  return { policy: counted, calls, solutions };
}
