// `pilotrl eval`'s test-time search: the `--search`, `--n`, `--width`, `--depth` and `--scorer`
// flags checked on their own, against the curriculum (paradigm, step limit) and against the policy
// (a value head for the value scorer), all before any episode runs; then the search each env's
// evaluation plays with (a judge with the env's oracle as reference, or the policy's value head).
import {
  judgePlanScorer,
  type PlanReference,
  type TestTimeSearch,
  type ValueModel,
  valueModelOf,
  valuePlanScorer,
} from '@pilotrl/agent';
import {
  ConfigError,
  type Judge,
  type Policy,
  parseOrThrow,
  type TrainablePolicy,
  UnsolvableTaskError,
} from '@pilotrl/core';
import { createChatClient } from '@pilotrl/llm';
import { createLlmJudge, createReferenceJudge } from '@pilotrl/rewards';
import { z } from 'zod';
import type { EnvProvider } from '../plugins/registry';
import { type CurriculumConfig, type EnvCurriculum, envCurricula } from './curriculum-config';

/** The search flags as the command line gives them. */
export interface SearchFlags {
  search?: 'none' | 'best-of-n' | 'lookahead';
  n?: number;
  width?: number;
  depth?: number;
  scorer?: 'judge' | 'value' | 'rollout';
}

const budget = (flag: string) =>
  z
    .number()
    .int(`${flag} must be a whole number`)
    .min(1, `${flag} must be at least 1; a search budget of 0 plays nothing`);

const onlyWith = (flags: SearchFlags, names: (keyof SearchFlags)[], search: string) => {
  const stray = names.filter((name) => flags[name] !== undefined);
  if (stray.length > 0) {
    throw new ConfigError(`${stray.map((name) => `--${name}`).join(', ')} only apply to --search ${search}`);
  }
};

/** A search the eval command can play: which, its budget and its scorer. */
export const searchChoiceSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('best-of-n'),
    /** Plans written per plan the agent needs. */
    n: budget('--n'),
    scorer: z.enum(['judge', 'value'], { message: '--scorer for best-of-n is judge or value' }),
  }),
  z.object({
    kind: z.literal('lookahead'),
    /** Candidate actions per decision. */
    width: budget('--width'),
    /** Env steps looked ahead per candidate. */
    depth: budget('--depth'),
    scorer: z.enum(['value', 'rollout'], { message: '--scorer for lookahead is value or rollout' }),
  }),
]);
export type SearchChoice = z.infer<typeof searchChoiceSchema>;

/** The search the flags ask for (undefined: none), or a ConfigError that names the flag. */
export function parseSearchFlags(flags: SearchFlags): SearchChoice | undefined {
  const search = flags.search ?? 'none';
  if (search === 'none') {
    onlyWith(flags, ['n', 'width', 'depth', 'scorer'], 'best-of-n or lookahead');
    return undefined;
  }
  if (search === 'best-of-n') {
    onlyWith(flags, ['width', 'depth'], 'lookahead');
    return parseOrThrow(
      searchChoiceSchema,
      { kind: search, n: flags.n ?? 4, scorer: flags.scorer ?? 'judge' },
      '--search best-of-n',
    );
  }
  onlyWith(flags, ['n'], 'best-of-n');
  return parseOrThrow(
    searchChoiceSchema,
    { kind: search, width: flags.width ?? 4, depth: flags.depth ?? 2, scorer: flags.scorer ?? 'rollout' },
    '--search lookahead',
  );
}

/** Checks `choice` against every env of the curriculum: best-of-N needs plans, look-ahead a depth within the step limit. */
export function checkSearchFitsConfig(choice: SearchChoice, config: CurriculumConfig): void {
  for (const { id, config: env } of envCurricula(config)) {
    if (choice.kind === 'best-of-n' && env.agent.paradigm !== 'adaplan') {
      throw new ConfigError(
        `--search best-of-n ranks plans, but env "${id}" is played with the react paradigm, which writes none; use --paradigm adaplan or --search lookahead`,
      );
    }
    if (choice.kind === 'lookahead' && choice.depth > env.env.maxSteps) {
      throw new ConfigError(
        `--depth ${choice.depth} is beyond env "${id}"'s step limit of ${env.env.maxSteps}; give --depth ${env.env.maxSteps} or less`,
      );
    }
  }
}

/** Whether `policy` can score with a value head: a trainable policy whose model has one. */
function valueModelFor(policy: Policy | TrainablePolicy): ValueModel | undefined {
  const model = (policy as { model?: { config?: { valueHead?: boolean } } }).model;
  if (!('forward' in policy) || model?.config?.valueHead !== true) return undefined;
  return valueModelOf(policy);
}

/** Checks that a value scorer has a value head to read; the error says what to use instead. */
export function checkSearchFitsPolicy(choice: SearchChoice, policy: Policy | TrainablePolicy): void {
  if (choice.scorer === 'value' && valueModelFor(policy) === undefined) {
    const instead = choice.kind === 'best-of-n' ? '--scorer judge' : '--scorer rollout';
    throw new ConfigError(
      `--scorer value needs a value head, but policy "${policy.name}" has none (a checkpoint trained with policy.valueHead: true has one; a --base-url model never does); use ${instead}`,
    );
  }
}

/** The judge of a curriculum's plans: its plan stage's kind, the reference judge otherwise. */
function judgeOf(config: EnvCurriculum): Judge {
  const planStage = config.stages.find((stage) => stage.kind === 'plan');
  if (planStage?.kind === 'plan' && planStage.judge === 'llm' && config.llm !== undefined) {
    const { baseUrl, model, apiKeyEnv } = config.llm;
    return createLlmJudge({ client: createChatClient({ baseUrl, model, apiKeyEnv }) });
  }
  return createReferenceJudge();
}

/**
 * The env oracle's plan and actions for each task, solved once per task; undefined without an
 * oracle or for a task it cannot solve (the judge then scores without a reference).
 */
function oracleReference(provider: EnvProvider): PlanReference {
  const oracle = provider.tasks.oracle?.bind(provider.tasks);
  const solved = new Map<string, Promise<{ plan: string[]; actions: string[] } | undefined>>();
  return (task) => {
    if (oracle === undefined) return Promise.resolve(undefined);
    const key = `${task.split}/${task.taskId}`;
    if (!solved.has(key)) {
      solved.set(
        key,
        oracle(task).then(
          ({ plan, actions }) => ({ plan, actions }),
          (error: unknown) => {
            if (UnsolvableTaskError.isInstance(error)) return undefined;
            throw error;
          },
        ),
      );
    }
    return solved.get(key)!;
  };
}

/** The search one env's evaluation plays, for a choice already checked against the policy. */
export function searchFor(
  choice: SearchChoice,
  policy: Policy | TrainablePolicy,
  env: { config: EnvCurriculum; provider: EnvProvider },
): TestTimeSearch {
  const model = valueModelFor(policy);
  if (choice.scorer === 'value') checkSearchFitsPolicy(choice, policy);
  if (choice.kind === 'best-of-n') {
    return {
      kind: 'best-of-n',
      n: choice.n,
      scorer:
        choice.scorer === 'value'
          ? valuePlanScorer(model!)
          : judgePlanScorer(judgeOf(env.config), { reference: oracleReference(env.provider) }),
    };
  }
  return {
    kind: 'lookahead',
    width: choice.width,
    depth: choice.depth,
    scorer: choice.scorer === 'value' ? { kind: 'value', model: model! } : { kind: 'rollout' },
  };
}
