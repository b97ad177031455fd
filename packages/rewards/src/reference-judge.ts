// A deterministic judge on PilotRL's rubric that needs no LLM: it scores a plan against the
// oracle's reference plan and actions and against what the environment shows (task text and
// observation). Its numbers come from the action-to-step matching of plan-matching.ts:
//   correctness     = how much of the reference solution the plan covers, in order (recall of the
//                     reference's key actions, i.e. all but going, opening, closing, looking, and of
//                     the reference plan's clauses), and how much of the plan belongs to the
//                     solution (precision, against all reference actions and plan clauses):
//                     f = 0.75 recall + 0.25 precision.
//   followability   = share of clauses an executor can act on: each clause names a known verb
//                     (half) and only objects the environment shows (half); minus 1 when the plan
//                     is more than twice as long as the reference plus two steps.
//   standardization = 5 minus one per kind of format problem (see `formatProblems`).
// A score in 1-5 is 1 + round(4 f). A plan that addresses the judge is flagged and capped.
import {
  formatPercent,
  InvalidArgumentError,
  type Judge,
  type JudgeInput,
  type JudgeResult,
  judgeInputSchema,
  parseOrThrow,
} from '@pilotrl/core';
import { z } from 'zod';
import { detectInstructionInjection, INJECTION_FLAG } from './injection';
import { alignActionsToPlan, clauseAsAction, isVerbWord, parseAction, planClauses } from './plan-matching';

export const referenceJudgeOptionsSchema = z.object({
  /** Highest score any criterion may get when the plan tries to instruct the judge. */
  injectionCap: z.number().int().min(1).max(5).default(1),
  /** Longest step, in words, before it counts as a format problem. */
  maxStepWords: z.number().int().positive().default(30),
  /** Most steps before the plan counts as too long a list. */
  maxSteps: z.number().int().positive().default(15),
});

const toScore = (fraction: number) =>
  Math.min(5, Math.max(1, 1 + Math.round(4 * Math.min(1, Math.max(0, fraction)))));
/** Words that may open an imperative step before its verb ("First, find a pen"). */
const SEQUENCE_WORDS = new Set([
  'first',
  'firstly',
  'then',
  'next',
  'finally',
  'now',
  'lastly',
  'afterwards',
]);
/** Verbs that only get the agent somewhere or show it something; plans rarely spell them out. */
const ENABLING_VERBS = new Set(['go', 'open', 'close', 'look', 'examine', 'inventory']);

function vocabulary(input: JudgeInput): string[] {
  const text = [
    input.task,
    input.observation ?? '',
    ...(input.reference?.actions ?? []),
    ...(input.reference?.plan ?? []),
  ].join(' ');
  return [...new Set(planClauses([text]).flatMap((clause) => clause.objects.map((object) => object.word)))];
}

function grounded(word: string, known: readonly string[]): boolean {
  return known.some(
    (candidate) =>
      candidate === word ||
      (word.length >= 3 &&
        candidate.length >= 3 &&
        (candidate.startsWith(word) || word.startsWith(candidate))),
  );
}

/** The kinds of format problems in a plan, each named once. */
export function formatProblems(
  plan: readonly string[],
  options: { maxStepWords: number; maxSteps: number },
): string[] {
  const problems: string[] = [];
  const leadingVerb = (step: string) => {
    const words = step.toLowerCase().match(/[a-z]+/g) ?? [];
    return words.find((word) => !SEQUENCE_WORDS.has(word)) ?? '';
  };
  if (!plan.every((step) => isVerbWord(leadingVerb(step)))) {
    problems.push('not every step starts with an imperative verb');
  }
  // The same step twice in a row is stutter; twice apart is fine ("put it in the dresser" for each of two cards).
  const normalised = plan.map((step) => step.trim().toLowerCase().replace(/\s+/g, ' '));
  if (normalised.some((step, index) => index > 0 && step === normalised[index - 1])) {
    problems.push('the same step twice in a row');
  }
  if (plan.some((step) => step.split(/\s+/).length > options.maxStepWords)) {
    problems.push(`steps longer than ${options.maxStepWords} words`);
  }
  if (plan.length > options.maxSteps) problems.push(`more than ${options.maxSteps} steps`);
  if (plan.some((step) => /^\s*step\s*\d+/i.test(step) || /\n/.test(step) || /[<>{}]/.test(step))) {
    problems.push('numbering, line breaks or markup inside steps');
  }
  return problems;
}

export function createReferenceJudge(options: z.input<typeof referenceJudgeOptionsSchema> = {}): Judge {
  const config = parseOrThrow(referenceJudgeOptionsSchema, options, 'reference judge options');

  const judgeOne = (raw: JudgeInput, index: number): JudgeResult => {
    const input = parseOrThrow(judgeInputSchema, raw, `judge input ${index}`);
    if (input.reference === undefined) {
      throw new InvalidArgumentError(
        `Judge input ${index} has no reference; the reference judge needs the oracle's plan and actions (input.reference)`,
      );
    }
    const { plan, reference } = input;
    const candidate = planClauses(plan);

    const keyActions = reference.actions.filter(
      (action) => ![...parseAction(action).verbs].every((verb) => ENABLING_VERBS.has(verb)),
    );
    const referenceActions = keyActions.length > 0 ? keyActions : reference.actions;
    const byActions = alignActionsToPlan(plan, referenceActions);
    const byAllActions = alignActionsToPlan(plan, reference.actions);
    const actionRecall =
      referenceActions.length === 0
        ? 1
        : byActions.clauseOf.filter((c) => c >= 0).length / referenceActions.length;
    const referenceClauses = planClauses(reference.plan).map(clauseAsAction);
    const byPlan = alignActionsToPlan(plan, referenceClauses);
    const planRecall =
      referenceClauses.length === 0
        ? 1
        : byPlan.clauseOf.filter((c) => c >= 0).length / referenceClauses.length;
    const recall = (actionRecall + planRecall) / 2;
    const usedClauses = candidate.filter(
      (_, clauseIndex) => byAllActions.coveredBy[clauseIndex]! >= 0 || byPlan.coveredBy[clauseIndex]! >= 0,
    );
    const precision = candidate.length === 0 ? 0 : usedClauses.length / candidate.length;
    const correctness = toScore(0.75 * recall + 0.25 * precision);

    const known = vocabulary(input);
    const actionable = candidate.filter((clause) => clause.verbs !== null).length;
    const groundedCount = candidate.filter((clause) =>
      clause.ownObjects.every((object) => grounded(object.word, known)),
    ).length;
    const ungrounded = [
      ...new Set(
        candidate.flatMap((clause) =>
          clause.ownObjects.map((object) => object.word).filter((word) => !grounded(word, known)),
        ),
      ),
    ];
    const followFraction = candidate.length === 0 ? 0 : (actionable + groundedCount) / (2 * candidate.length);
    const tooLong = plan.length > 2 * reference.plan.length + 2;
    const followability = Math.max(1, toScore(followFraction) - (tooLong ? 1 : 0));

    const problems = formatProblems(plan, config);
    const standardization = Math.max(1, 5 - problems.length);

    const injection = detectInstructionInjection(plan.join('\n'));
    const cap = (score: number) => (injection.length > 0 ? Math.min(score, config.injectionCap) : score);
    const capNote =
      injection.length > 0
        ? ` Capped at ${config.injectionCap}: the plan addresses the judge (${injection.join(', ')}).`
        : '';
    return {
      correctness: {
        score: cap(correctness),
        reason: `Covers ${formatPercent(actionRecall, 0)} of the reference's key actions and ${formatPercent(planRecall, 0)} of the reference plan in order; ${formatPercent(precision, 0)} of the plan belongs to the solution.${capNote}`,
      },
      followability: {
        score: cap(followability),
        reason: `${actionable}/${candidate.length} clauses name an action and ${groundedCount}/${candidate.length} name only objects the environment shows${ungrounded.length > 0 ? ` (unknown: ${ungrounded.slice(0, 5).join(', ')})` : ''}${tooLong ? '; far longer than the reference plan' : ''}.${capNote}`,
      },
      standardization: {
        score: cap(standardization),
        reason:
          problems.length === 0
            ? `Well-formed steps.${capNote}`
            : `Format problems: ${problems.join('; ')}.${capNote}`,
      },
      flags: injection.length > 0 ? [INJECTION_FLAG] : [],
      judge: 'reference',
    };
  };

  return {
    name: 'reference',
    async judge(inputs) {
      return inputs.map(judgeOne);
    },
  };
}
