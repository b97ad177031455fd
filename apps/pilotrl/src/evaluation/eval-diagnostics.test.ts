// The diagnostics of an evaluation, on hand-made episodes: plan following read from the step
// checks, revisions and the success with and without them, looping turns, errors by turn position,
// and the lines they are printed on.
import type { Episode, PlanRevision, StepPass } from '@pilotrl/core';
import { episodeRecord, turnRecord } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { formatEvalTable } from '../commands/eval';
import { type EvalRecord, evalRecordOf } from '../run/run-records';
import { diagnosticsLine, evalDiagnostics, revisionsOf } from './eval-diagnostics';
import { evalSummary } from './evaluate-envs';

const revision = (turn: number, steps: string[], fixedSteps = 0): PlanRevision => ({
  turn,
  steps,
  source: 'policy',
  fixedSteps,
});
const pass = (step: string, position: number, turn: number): StepPass => ({ step, position, turn });

/** An AdaPlan episode of `turns` valid commands under `planHistory`, its step checks as given. */
const checked = (
  turns: number,
  planHistory: PlanRevision[],
  passed: StepPass[] | undefined,
  fields: Partial<Episode> = {},
): Episode =>
  episodeRecord(
    Array.from({ length: turns }, (_, index) => `act ${index}`),
    {
      planHistory,
      ...(passed === undefined
        ? {}
        : { stepChecks: { passed, planSteps: planHistory.at(-1)?.steps.length ?? 0 } }),
      ...fields,
    },
  );

describe('plan-follow rate', () => {
  it('counts the turns whose command carried out the step marked next, of those with a step next', () => {
    // Steps a and b pass at turns 0 and 2; turns 1 and 3 miss b and c: 2 of 4.
    const partly = checked(4, [revision(0, ['a', 'b', 'c'])], [pass('a', 0, 0), pass('b', 1, 2)]);
    // The one step passes at turn 0; turns 1 and 2 have no step left to follow: 1 of 1.
    const done = checked(3, [revision(0, ['a'])], [pass('a', 0, 0)]);
    expect(evalDiagnostics([partly, done]).planFollow).toEqual({
      episodes: 2,
      turns: 5,
      followed: 3,
      rate: 0.6,
    });
  });

  it('follows a revised plan from the steps already passed, and skips turns before any plan', () => {
    // No plan at turn 0; [a, b] from turn 1 (a passes there), revised at turn 3 keeping a: c passes at 4.
    const revised = checked(
      5,
      [revision(1, ['a', 'b']), revision(3, ['a', 'c', 'd'], 1)],
      [pass('a', 0, 1), pass('c', 1, 4)],
    );
    expect(evalDiagnostics([revised]).planFollow).toEqual({
      episodes: 1,
      turns: 4,
      followed: 2,
      rate: 0.5,
    });
  });

  it('is null where no AdaPlan episode had step checks, and leaves such episodes out where some did', () => {
    const unchecked = checked(3, [revision(0, ['a'])], undefined);
    const react = checked(3, [], [], { paradigm: 'react' });
    expect(evalDiagnostics([unchecked, react]).planFollow).toBeNull();
    const followed = checked(2, [revision(0, ['a', 'b'])], [pass('a', 0, 0), pass('b', 1, 1)]);
    expect(evalDiagnostics([unchecked, react, followed]).planFollow).toEqual({
      episodes: 1,
      turns: 2,
      followed: 2,
      rate: 1,
    });
  });
});

describe('revisions', () => {
  it('counts the plans after the first that changed it, and the success with and without one', () => {
    const p = ['a', 'b'];
    const q = ['a', 'c'];
    // Rewritten the same, then changed: one revision; won.
    const once = checked(3, [revision(0, p), revision(1, [...p]), revision(2, q, 1)], undefined, {
      won: true,
    });
    const never = checked(3, [revision(0, p)], undefined);
    const twice = checked(3, [revision(0, p), revision(1, q, 1), revision(2, p, 1)], undefined);
    const noPlan = checked(1, [], undefined, { won: true });
    expect([once, never, twice, noPlan].map(revisionsOf)).toEqual([1, 0, 2, 0]);
    expect(evalDiagnostics([once, never, twice, noPlan]).revisions).toEqual({
      perEpisode: 0.75,
      revised: { episodes: 2, successes: 1, rate: 0.5 },
      unrevised: { episodes: 2, successes: 1, rate: 0.5 },
    });
  });

  it('is null for ReAct episodes, and a side with no episodes has no rate', () => {
    expect(evalDiagnostics([checked(2, [], undefined, { paradigm: 'react' })]).revisions).toBeNull();
    expect(evalDiagnostics([checked(2, [revision(0, ['a'])], undefined)]).revisions?.revised).toEqual({
      episodes: 0,
      successes: 0,
      rate: null,
    });
  });
});

describe('looping turns', () => {
  /** An episode walking between `places`: at each turn it is at one and goes to the next. */
  const walk = (places: string[], won: boolean): Episode => {
    const episode = checked(places.length - 1, [], undefined, { won });
    episode.turns = places
      .slice(0, -1)
      .map((place, index) =>
        turnRecord(index, `go to ${places[index + 1]}`, { observation: `You are at ${place}.` }),
      );
    return episode;
  };

  it('counts the commands played again from a state they were played from, and the lost episodes stuck in them', () => {
    // A, B, A, B, A, B: the last three moves repeat ones made from the same place.
    const stuck = walk(['A', 'B', 'A', 'B', 'A', 'B'], false);
    // A, B, C, B, D: back at B it goes on to D, a command not played there before: no loop.
    const searching = walk(['A', 'B', 'C', 'B', 'D'], false);
    // Won after one repeat (A → B twice), which is fewer than the three that make an episode stuck.
    const won = walk(['A', 'B', 'A', 'B', 'C'], true);
    expect(evalDiagnostics([stuck, searching, won]).loops).toEqual({
      turns: 5 + 4 + 4,
      looping: 3 + 0 + 1,
      rate: 4 / 13,
      lostEpisodes: 2,
      lostLooping: 1,
    });
    expect(evalDiagnostics([]).loops).toEqual({
      turns: 0,
      looping: 0,
      rate: null,
      lostEpisodes: 0,
      lostLooping: 0,
    });
  });
});

describe('errors by turn', () => {
  it('gives the share of invalid or malformed commands in turns 1-5, 6-10, 11-15', () => {
    const long = checked(12, [], undefined);
    long.turns[0] = turnRecord(0, null); // malformed
    long.turns[6] = turnRecord(6, 'jump', { valid: false }); // refused by the env
    long.turns[10] = turnRecord(10, null);
    const short = checked(3, [], undefined, { paradigm: 'react' });
    expect(evalDiagnostics([long, short]).errorsByTurn).toEqual([
      { from: 1, to: 5, turns: 8, errors: 1, rate: 1 / 8 },
      { from: 6, to: 10, turns: 5, errors: 1, rate: 0.2 },
      { from: 11, to: 15, turns: 2, errors: 1, rate: 0.5 },
    ]);
    expect(evalDiagnostics([]).errorsByTurn).toEqual([]);
  });
});

describe('the eval record and its lines', () => {
  const episodes = [
    checked(2, [revision(0, ['a', 'b'])], [pass('a', 0, 0)], { won: true }),
    checked(2, [revision(0, ['a']), revision(1, ['b'])], [], { won: false }),
  ];
  const record: EvalRecord = evalRecordOf(
    episodes,
    { step: 3, phase: 'joint', split: 'valid_unseen', paradigm: 'adaplan' },
    null,
  );

  it('carries the diagnostics of its episodes', () => {
    expect(record.diagnostics).toEqual(evalDiagnostics(episodes));
    expect(record.diagnostics?.planFollow?.rate).toBe(0.25);
  });

  it('prints them on one line under the split, and the short ones in the trainer summary', () => {
    expect(diagnosticsLine(record.diagnostics!)).toBe(
      'plan-follow 25.0% of 4 turns; revisions/ep 0.50; won revised 0.0% of 1, unrevised 100.0% of 1; looping 0.0% of 4 turns, lost with 3+ 0 of 1; errors by turn 1-5 0.0%',
    );
    const oraclePlan = {
      success: { successes: 2, total: 2, rate: 1, low: 0.34, high: 1 },
      meanSteps: 2,
      formatErrorRate: 0,
      diagnostics: record.diagnostics!,
    };
    expect(evalSummary([record, { ...record, split: 'valid_seen', oraclePlan }])).toBe(
      'valid_unseen 50.0% [9.5%, 90.5%] (plan-follow 25.0%, revisions/ep 0.50, looping 0.0%); valid_seen 50.0% [9.5%, 90.5%] (plan-follow 25.0%, revisions/ep 0.50, looping 0.0%, oracle plan 100.0%)',
    );
    const { diagnostics: _old, ...before } = record;
    expect(evalSummary([before])).toBe('valid_unseen 50.0% [9.5%, 90.5%]');
    expect(
      formatEvalTable([{ ...record, oraclePlan }])
        .split('\n')
        .slice(3),
    ).toEqual([
      '  plan-follow 25.0% of 4 turns; revisions/ep 0.50; won revised 0.0% of 1, unrevised 100.0% of 1; looping 0.0% of 4 turns, lost with 3+ 0 of 1; errors by turn 1-5 0.0%',
      "  with the oracle's plan              100.0%  [34.0%, 100.0%]   2    2.0       0.0%",
      '    plan-follow 25.0% of 4 turns; revisions/ep 0.50; won revised 0.0% of 1, unrevised 100.0% of 1; looping 0.0% of 4 turns, lost with 3+ 0 of 1; errors by turn 1-5 0.0%',
      '',
    ]);
  });
});
