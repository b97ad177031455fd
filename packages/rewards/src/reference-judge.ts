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
// With `input.step` (PilotRL's per-step judge: the plan in force at one step of an episode, that
// step's action and the env's answer), each of correctness and followability becomes
// (1 - stepWeight) f + stepWeight s, where s is what the step showed of the plan:
//   correctness s   = 0 when the step shows the plan wrong: every step of it had been carried out
//                     and the episode went on; or its marked step (the one the agent was on, or
//                     the clause the action fits when the input has no planStep) names an instance
//                     the room lacks ("countertop 3" where the observation lists countertops 1-2
//                     and nothing else names a third), takes an object from a receptacle whose
//                     contents the env has just listed without it, or was carried out by the
//                     action in words and the env answered "Nothing happens."; 1 otherwise.
//   followability s = 1 when the action carried out the marked step (the env's step check,
//                     `planStepDone`, where it checked; the clause matching of plan-matching.ts
//                     otherwise), 0.5 when it worked towards it (names one of its instances, "go
//                     to fridge 1" for "cool the apple with fridge 1"), 0 when it did neither,
//                     when the plan had no step left, or when the env answered "Nothing happens."
//                     (or the action did not parse).
// Standardization is the plan's own. A score in 1-5 is 1 + round(4 f). A plan that addresses the
// judge is flagged and capped.
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
import {
  actionMatchesClause,
  alignActionsToPlan,
  type Clause,
  clauseAsAction,
  isVerbWord,
  type ObjectWord,
  parseAction,
  planClauses,
} from './plan-matching';

export const referenceJudgeOptionsSchema = z.object({
  /** Highest score any criterion may get when the plan tries to instruct the judge. */
  injectionCap: z.number().int().min(1).max(5).default(1),
  /** Longest step, in words, before it counts as a format problem. */
  maxStepWords: z.number().int().positive().default(30),
  /** Most steps before the plan counts as too long a list. */
  maxSteps: z.number().int().positive().default(15),
  /** Weight of what a judged step showed (`input.step`) in correctness and followability. */
  stepWeight: z.number().min(0).max(1).default(0.5),
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

/** The env's answer to a command that changed nothing (ALFWorld's, TextWorld's). */
const NOTHING_HAPPENS = /^\s*nothing happens/i;

/** What one judged step showed of the plan: a fraction for correctness and one for followability. */
interface StepEvidence {
  correctness: number;
  followability: number;
  /** Why, in a sentence each, for the reasons. */
  correctnessNote: string;
  followabilityNote: string;
}

/** Numbered instances ("fridge 1") that `text` names. */
function instancesIn(text: string): ObjectWord[] {
  return planClauses([text]).flatMap((clause) =>
    clause.ownObjects.filter((object) => object.number !== undefined),
  );
}

/** The receptacles whose contents `feedback` lists, with the object types listed ("On the desk 1, you see a pen 2."). */
function listedContents(feedback: string): Map<string, string[]> {
  const contents = new Map<string, string[]>();
  const listing = /(?:on the ([a-z]+ \d+)|the ([a-z]+ \d+) is open\. in it), you see ([^.]*)\./gi;
  for (const match of feedback.matchAll(listing)) {
    const receptacle = (match[1] ?? match[2]!).toLowerCase();
    const types = [...match[3]!.toLowerCase().matchAll(/\ban? ([a-z]+) \d+/g)].map((item) => item[1]!);
    contents.set(receptacle, types);
  }
  return contents;
}

/**
 * Why `step`, the marked plan step, is contradicted by what the env has shown, or undefined. An
 * instance counts as missing when the observation the plan was written on lists its type (a room's
 * "you see a cabinet 1, ..., a cabinet 4") and nothing the judge sees names that instance.
 */
function contradiction(
  step: string,
  clauses: readonly Clause[],
  listed: readonly ObjectWord[],
  known: readonly ObjectWord[],
  feedback: string,
) {
  const missing = clauses
    .flatMap((clause) => clause.ownObjects)
    .find(
      (object) =>
        object.number !== undefined &&
        listed.some((seen) => seen.word === object.word) &&
        !known.some((seen) => seen.word === object.word && seen.number === object.number),
    );
  if (missing !== undefined)
    return `its next step names ${missing.word} ${missing.number}, which the room lacks`;
  const taking = /\btake (?:the |a |an )?([a-z]+?)s?(?: \d+)? from (?:the )?([a-z]+ \d+)/i.exec(step);
  if (taking !== null) {
    const seen = listedContents(feedback).get(taking[2]!.toLowerCase());
    if (seen !== undefined && !seen.includes(taking[1]!.toLowerCase())) {
      return `its next step takes the ${taking[1]} from ${taking[2]}, where the env shows none`;
    }
  }
  return undefined;
}

function judgeStep(input: JudgeInput, step: NonNullable<JudgeInput['step']>): StepEvidence {
  const clauses = planClauses(input.plan);
  const feedback = step.feedback ?? '';
  const failed = step.action === null || NOTHING_HAPPENS.test(feedback);
  const action = step.action === null ? undefined : parseAction(step.action);
  if (step.planStep !== undefined && step.planStep >= input.plan.length) {
    return {
      correctness: 0,
      followability: 0,
      correctnessNote: 'Every step of the plan had been carried out and the episode went on.',
      followabilityNote: 'The plan had no step left to follow.',
    };
  }
  // The marked step's clauses: the step the agent was on, or else the clauses the action fits.
  const marked =
    step.planStep !== undefined
      ? clauses.filter((clause) => clause.step === step.planStep)
      : clauses.filter((clause) => action !== undefined && actionMatchesClause(action, clause));
  const markedText =
    step.planStep !== undefined ? input.plan[step.planStep]! : marked.map((c) => c.text).join(', ');
  const carriedInWords = action !== undefined && marked.some((clause) => actionMatchesClause(action, clause));
  const carried = !failed && (step.planStepDone ?? carriedInWords);
  const towards =
    !failed &&
    action !== undefined &&
    marked.some((clause) =>
      clause.objects.some(
        (object) =>
          object.number !== undefined &&
          action.objects.some((named) => named.word === object.word && named.number === object.number),
      ),
    );
  const followability = carried ? 1 : towards ? 0.5 : 0;
  const actionText = step.action ?? '(unparsed output)';
  const followabilityNote = failed
    ? `The env answered "${feedback.trim().slice(0, 40)}" to ${actionText}.`
    : carried
      ? `${actionText} carried out the plan's step.`
      : towards
        ? `${actionText} worked towards the plan's step.`
        : `${actionText} did not follow the plan's step.`;

  const listed = instancesIn(input.observation ?? '');
  const known = [
    ...listed,
    ...[input.task, feedback, ...(input.reference?.actions ?? []), ...(input.reference?.plan ?? [])].flatMap(
      instancesIn,
    ),
  ];
  const contradicted =
    marked.length === 0
      ? undefined
      : (contradiction(markedText, marked, listed, known, feedback) ??
        (failed && carriedInWords ? `the env answered "${feedback.trim()}" to its next step` : undefined));
  return {
    correctness: contradicted === undefined ? 1 : 0,
    followability,
    correctnessNote:
      contradicted === undefined
        ? 'The step showed nothing against the plan.'
        : `At this step ${contradicted}.`,
    followabilityNote,
  };
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
    const evidence = input.step === undefined ? undefined : judgeStep(input, input.step);
    const withStep = (fraction: number, stepFraction: number | undefined) =>
      stepFraction === undefined
        ? fraction
        : (1 - config.stepWeight) * fraction + config.stepWeight * stepFraction;
    const correctness = toScore(withStep(0.75 * recall + 0.25 * precision, evidence?.correctness));

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
    const followability = Math.max(
      1,
      toScore(withStep(followFraction, evidence?.followability)) - (tooLong ? 1 : 0),
    );

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
        reason: `Covers ${formatPercent(actionRecall, 0)} of the reference's key actions and ${formatPercent(planRecall, 0)} of the reference plan in order; ${formatPercent(precision, 0)} of the plan belongs to the solution.${evidence === undefined ? '' : ` ${evidence.correctnessNote}`}${capNote}`,
      },
      followability: {
        score: cap(followability),
        reason: `${actionable}/${candidate.length} clauses name an action and ${groundedCount}/${candidate.length} name only objects the environment shows${ungrounded.length > 0 ? ` (unknown: ${ungrounded.slice(0, 5).join(', ')})` : ''}${tooLong ? '; far longer than the reference plan' : ''}.${evidence === undefined ? '' : ` ${evidence.followabilityNote}`}${capNote}`,
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
