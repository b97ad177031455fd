// What an evaluation's episodes say about why they missed, beside their success: whether the
// commands carried out the plan (where the env's step checks ran), how often plans were revised and
// how revised episodes fared, how often a command was played again from a state it was played
// from before (a loop), and how the share of invalid or malformed commands grows along the episode.
// Computed from the episodes alone, so a record read back, or a file of episodes, gives the same
// figures.
import { type Episode, formatPercent, type PlanRevision } from '@pilotrl/core';
import { loopingTurns } from '@pilotrl/rewards';
import { z } from 'zod';

const count = z.number().int().nonnegative();
/** A share of something counted beside it; null when there was nothing to count. */
const share = z.number().min(0).max(1).nullable();

export const planFollowSchema = z.object({
  /** AdaPlan episodes whose step checks ran (`episode.stepChecks`). */
  episodes: count,
  /** Their turns played with a plan step marked next (all steps done, or no plan yet, left out). */
  turns: count,
  /** Of those turns, the ones whose command carried out that step (its check passed at the turn). */
  followed: count,
  /** `followed / turns`. */
  rate: share,
});
export type PlanFollow = z.infer<typeof planFollowSchema>;

const outcomeSchema = z.object({ episodes: count, successes: count, rate: share });

export const revisionStatsSchema = z.object({
  /** Plans after the first that changed the plan, per AdaPlan episode. */
  perEpisode: z.number().nonnegative(),
  /** AdaPlan episodes with at least one such revision, and how many of them were won. */
  revised: outcomeSchema,
  /** AdaPlan episodes that kept their first plan (or wrote none), and how many were won. */
  unrevised: outcomeSchema,
});
export type RevisionStats = z.infer<typeof revisionStatsSchema>;

export const loopStatsSchema = z.object({
  /** Turns that played a command. */
  turns: count,
  /** Of those, the turns whose command the episode had played from the same state before (what `loop_penalty` charges). */
  looping: count,
  /** `looping / turns`. */
  rate: share,
  /** Lost episodes, and those of them with at least `LOOPING_EPISODE` looping turns. */
  lostEpisodes: count,
  lostLooping: count,
});
export type LoopStats = z.infer<typeof loopStatsSchema>;

/** Looping turns from which a lost episode counts as stuck in a loop. */
export const LOOPING_EPISODE = 3;

export const turnErrorsSchema = z.object({
  /** The bucket's first and last turn, counted from 1 (1-5, 6-10, ...). */
  from: z.number().int().positive(),
  to: z.number().int().positive(),
  /** Turns played at these positions, over all episodes. */
  turns: count,
  /** Of those, the turns whose command was invalid (the env refused it) or malformed (unparsed). */
  errors: count,
  rate: z.number().min(0).max(1),
});
export type TurnErrors = z.infer<typeof turnErrorsSchema>;

export const evalDiagnosticsSchema = z.object({
  /** Null where no AdaPlan episode had step checks (ReAct, free-text plans, an env without checks). */
  planFollow: planFollowSchema.nullable(),
  /** Null where no episode was played by an AdaPlan agent. */
  revisions: revisionStatsSchema.nullable(),
  /** Absent in records written before it was measured. */
  loops: loopStatsSchema.optional(),
  /** By turn position, in buckets of `TURN_BUCKET` turns; empty when no turn was played. */
  errorsByTurn: z.array(turnErrorsSchema),
});
export type EvalDiagnostics = z.infer<typeof evalDiagnosticsSchema>;

/** Turns per bucket of `errorsByTurn`. */
export const TURN_BUCKET = 5;

const ratio = (part: number, whole: number) => (whole === 0 ? null : part / whole);

/** The diagnostics of `episodes`, all played on one split. */
export function evalDiagnostics(episodes: readonly Episode[]): EvalDiagnostics {
  const planned = episodes.filter((episode) => episode.paradigm === 'adaplan');
  return {
    planFollow: planFollowOf(planned),
    revisions: planned.length === 0 ? null : revisionStatsOf(planned),
    loops: loopStatsOf(episodes),
    errorsByTurn: errorsByTurnOf(episodes),
  };
}

/** The plan in force before `turn`: the last revision made at or before it. */
function planAt(history: readonly PlanRevision[], turn: number): PlanRevision | undefined {
  return history.filter((revision) => revision.turn <= turn).at(-1);
}

/**
 * Turns with a step marked next, and those that carried it out, read from the step checks: the
 * checks run in plan order and resume after the steps passed when a plan is revised (core's
 * `createStepCheckRecorder`), so the step marked next at a turn is the one at the position of the
 * steps passed before it, and at most one passes per turn.
 */
function planFollowOf(planned: readonly Episode[]): PlanFollow | null {
  const checked = planned.filter((episode) => episode.stepChecks !== undefined);
  if (checked.length === 0) return null;
  let turns = 0;
  let followed = 0;
  for (const episode of checked) {
    const passedAt = new Set(episode.stepChecks!.passed.map((pass) => pass.turn));
    let passed = 0;
    for (const turn of episode.turns) {
      const plan = planAt(episode.planHistory, turn.index);
      if (plan === undefined || passed >= plan.steps.length) continue;
      turns += 1;
      if (passedAt.has(turn.index)) {
        followed += 1;
        passed += 1;
      }
    }
  }
  return { episodes: checked.length, turns, followed, rate: ratio(followed, turns) };
}

const sameSteps = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((step, index) => step === b[index]);

/** Revisions that changed the plan (a plan rewritten the same does not count). */
export function revisionsOf(episode: Episode): number {
  const history = episode.planHistory;
  return history.slice(1).filter((revision, index) => !sameSteps(revision.steps, history[index]!.steps))
    .length;
}

function revisionStatsOf(planned: readonly Episode[]): RevisionStats {
  const counts = planned.map(revisionsOf);
  const outcome = (group: readonly Episode[]) => {
    const successes = group.filter((episode) => episode.won).length;
    return { episodes: group.length, successes, rate: ratio(successes, group.length) };
  };
  return {
    perEpisode: counts.reduce((sum, n) => sum + n, 0) / planned.length,
    revised: outcome(planned.filter((_, index) => counts[index]! > 0)),
    unrevised: outcome(planned.filter((_, index) => counts[index] === 0)),
  };
}

function loopStatsOf(episodes: readonly Episode[]): LoopStats {
  let turns = 0;
  let looping = 0;
  let lostEpisodes = 0;
  let lostLooping = 0;
  for (const episode of episodes) {
    const loops = loopingTurns(episode).filter(Boolean).length;
    turns += episode.turns.filter((turn) => turn.action !== null).length;
    looping += loops;
    if (!episode.won) {
      lostEpisodes += 1;
      if (loops >= LOOPING_EPISODE) lostLooping += 1;
    }
  }
  return { turns, looping, rate: ratio(looping, turns), lostEpisodes, lostLooping };
}

function errorsByTurnOf(episodes: readonly Episode[]): TurnErrors[] {
  const buckets: { turns: number; errors: number }[] = [];
  for (const turn of episodes.flatMap((episode) => episode.turns)) {
    const at = Math.floor(turn.index / TURN_BUCKET);
    for (let index = buckets.length; index <= at; index++) buckets.push({ turns: 0, errors: 0 });
    buckets[at]!.turns += 1;
    if (turn.formatError !== null || !turn.valid) buckets[at]!.errors += 1;
  }
  return buckets.map(({ turns, errors }, index) => ({
    from: index * TURN_BUCKET + 1,
    to: (index + 1) * TURN_BUCKET,
    turns,
    errors,
    rate: turns === 0 ? 0 : errors / turns,
  }));
}

const percentOrDash = (rate: number | null) => (rate === null ? '-' : formatPercent(rate));

/** The short form for a summary line: plan-follow rate and revisions per episode, where measured. */
export function diagnosticsSummary(diagnostics: EvalDiagnostics): string[] {
  return [
    ...(diagnostics.planFollow === null ? [] : [`plan-follow ${percentOrDash(diagnostics.planFollow.rate)}`]),
    ...(diagnostics.revisions === null
      ? []
      : [`revisions/ep ${diagnostics.revisions.perEpisode.toFixed(2)}`]),
    ...(diagnostics.loops === undefined ? [] : [`looping ${percentOrDash(diagnostics.loops.rate)}`]),
  ];
}

/** Every figure on one line, as `pilotrl eval` prints it under a split. */
export function diagnosticsLine(diagnostics: EvalDiagnostics): string {
  const { planFollow, revisions, loops, errorsByTurn } = diagnostics;
  const won = (o: z.infer<typeof outcomeSchema>) => `${percentOrDash(o.rate)} of ${o.episodes}`;
  return [
    ...(planFollow === null
      ? []
      : [`plan-follow ${percentOrDash(planFollow.rate)} of ${planFollow.turns} turns`]),
    ...(revisions === null
      ? []
      : [
          `revisions/ep ${revisions.perEpisode.toFixed(2)}`,
          `won revised ${won(revisions.revised)}, unrevised ${won(revisions.unrevised)}`,
        ]),
    ...(loops === undefined
      ? []
      : [
          `looping ${percentOrDash(loops.rate)} of ${loops.turns} turns, lost with ${LOOPING_EPISODE}+ ${loops.lostLooping} of ${loops.lostEpisodes}`,
        ]),
    ...(errorsByTurn.length === 0
      ? []
      : [
          `errors by turn ${errorsByTurn.map((b) => `${b.from}-${b.to} ${formatPercent(b.rate)}`).join(' ')}`,
        ]),
  ].join('; ');
}
