// Test-time search, as an evaluation selects it: best-of-N plans (N plans written, the best by a
// judge or the value head acted on) or look-ahead over copies of the env's state (candidate
// actions tried on copies, scored by the value head or a short greedy rollout, the best played).
// The options are checked here, before any episode runs.
import { ConfigError, type Plan, parseOrThrow, type StepResult } from '@pilotrl/core';
import { z } from 'zod';
import type { Agent } from './agent';
import type { PlanScorer } from './plan-scorers';
import type { ValueModel } from './value-model';

/**
 * Whether a look-ahead branch may be kept, told the action just played on a copy, the copy's
 * answer, and the plan in force with the steps carried out before the action; false abandons it.
 */
export type BranchCheck = (input: {
  plan: Plan | null;
  stepsDone: number;
  action: string;
  result: StepResult;
}) => boolean;

const budget = (what: string) =>
  z
    .number()
    .int(`${what} must be a whole number`)
    .min(1, `${what} must be at least 1; a search budget of 0 would play nothing`);

const isObject = (value: unknown) => typeof value === 'object' && value !== null;

export const bestOfNSchema = z.object({
  kind: z.literal('best-of-n'),
  /** Plans written per plan the agent needs; 1 is plain evaluation. */
  n: budget('best-of-n: n'),
  /** Ranks the N plans (`judgePlanScorer`, `valuePlanScorer`). */
  scorer: z.custom<PlanScorer>(
    (value) => isObject(value) && typeof (value as PlanScorer).score === 'function',
    {
      message: 'best-of-n: scorer must be a PlanScorer (judgePlanScorer or valuePlanScorer)',
    },
  ),
  /**
   * Sampling temperature of every sample after the first, which keeps the agent's own (so N = 1 is
   * plain evaluation). Greedy agents need it: at temperature 0 the N samples would be one plan.
   */
  temperature: z.number().min(0).default(1),
});

export const lookaheadScorerSchema = z.discriminatedUnion('kind', [
  /** A branch is worth its outcome within the depth: won 1, ended otherwise -1, still running 0. */
  z.object({ kind: z.literal('rollout') }),
  /** As `rollout`, but a branch still running is worth the value head's estimate where it stops. */
  z.object({
    kind: z.literal('value'),
    model: z.custom<ValueModel>(
      (value) => isObject(value) && typeof (value as ValueModel).values === 'function',
      {
        message: 'lookahead: a value scorer needs a ValueModel (valueModelOf(trainablePolicy))',
      },
    ),
  }),
]);
export type LookaheadScorer = z.infer<typeof lookaheadScorerSchema>;

export const lookaheadSchema = z.object({
  kind: z.literal('lookahead'),
  /** Candidate actions tried at each decision. */
  width: budget('lookahead: width'),
  /** Env steps looked ahead per candidate: its own step, then greedy steps of the policy. */
  depth: budget('lookahead: depth'),
  scorer: lookaheadScorerSchema,
  /** A branch whose step fails this check is abandoned (backtracked). */
  branchCheck: z.custom<BranchCheck>((value) => typeof value === 'function').optional(),
  /** A branch scored more than this below the state it started from is abandoned. */
  valueDropTolerance: z.number().min(0).default(0),
});

export const testTimeSearchSchema = z.discriminatedUnion('kind', [bestOfNSchema, lookaheadSchema]);
export type TestTimeSearch = z.input<typeof testTimeSearchSchema>;
export type ResolvedTestTimeSearch = z.output<typeof testTimeSearchSchema>;
export type BestOfNSearch = z.output<typeof bestOfNSchema>;
export type LookaheadSearch = z.output<typeof lookaheadSchema>;

/** `search` checked on its own and against the agent it will drive; a ConfigError says what does not fit. */
export function resolveSearch(search: TestTimeSearch, agent: Agent): ResolvedTestTimeSearch {
  const resolved = parseOrThrow(testTimeSearchSchema, search, 'test-time search');
  if (resolved.kind === 'best-of-n') {
    if (agent.paradigm !== 'adaplan') {
      throw new ConfigError(
        'best-of-n searches over plans, which only an AdaPlan agent writes; use the adaplan paradigm or lookahead',
      );
    }
    if (agent.options.planSource.kind !== 'policy') {
      throw new ConfigError(
        'best-of-n ranks plans the policy writes, but this agent is given its plans; use planSource { kind: "policy" }',
      );
    }
  } else if (resolved.depth > agent.options.maxTurns) {
    throw new ConfigError(
      `lookahead: depth ${resolved.depth} is beyond the agent's step limit of ${agent.options.maxTurns} turns; give a depth of at most ${agent.options.maxTurns}`,
    );
  }
  return resolved;
}
