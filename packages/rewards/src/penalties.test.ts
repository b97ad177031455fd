import { episodeRecord, generationRecord, turnRecord } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createFormatReward } from './format';
import { createInvalidActionPenalty } from './invalid-action';
import { createOutcomeReward } from './outcome';
import { createOverlongPenalty, overlongPenalty } from './overlong';
import { createRepeatedActionPenalty } from './repeated-action';

describe('outcome', () => {
  it('rewards a won episode and not a lost one, with configurable values', () => {
    expect(createOutcomeReward().compute(episodeRecord(['mix bowl'], { won: true }))).toEqual({ outcome: 1 });
    expect(createOutcomeReward().compute(episodeRecord(['mix bowl']))).toEqual({ outcome: 0 });
    expect(createOutcomeReward({ success: 10, failure: -1 }).compute(episodeRecord([]))).toEqual({
      outcome: -1,
    });
  });
});

describe('format', () => {
  const twoOfFour = episodeRecord(['take tomato', null, 'look', null]);

  it('penalises format errors by fraction, count or any', () => {
    expect(createFormatReward().compute(twoOfFour)).toEqual({ format: -0.5 });
    expect(createFormatReward({ mode: 'count', penalty: 0.1 }).compute(twoOfFour)).toEqual({ format: -0.2 });
    expect(createFormatReward({ mode: 'any' }).compute(twoOfFour)).toEqual({ format: -1 });
    expect(createFormatReward().compute(episodeRecord(['look']))).toEqual({ format: 0 });
  });

  it('marks the turns with errors', () => {
    expect(createFormatReward().computeTurns!(twoOfFour).map((record) => record.format)).toEqual([
      0, -1, 0, -1,
    ]);
  });
});

describe('invalid action', () => {
  it('counts refused commands but not format errors', () => {
    const played = episodeRecord([]);
    played.turns = [
      turnRecord(0, 'take tomato'),
      turnRecord(1, 'take unicorn', { valid: false }),
      turnRecord(2, null),
      turnRecord(3, 'fly', { valid: false }),
    ];
    const penalty = createInvalidActionPenalty();
    expect(penalty.compute(played)).toEqual({ invalid_action: -0.5 });
    expect(penalty.computeTurns!(played).map((record) => record.invalid_action)).toEqual([0, -1, 0, -1]);
  });
});

describe('repeated action', () => {
  const loop = episodeRecord(['go east', 'go east', 'Go  East', 'look', 'go east', 'look']);

  it('counts consecutive repeats by default, after normalising', () => {
    const penalty = createRepeatedActionPenalty({ mode: 'count', penalty: 1 });
    expect(penalty.compute(loop)).toEqual({ repeated_action: -2 });
    expect(penalty.computeTurns!(loop).map((record) => record.repeated_action)).toEqual([0, -1, -1, 0, 0, 0]);
  });

  it('looks further back with a window and skips ignored actions', () => {
    expect(createRepeatedActionPenalty({ mode: 'count', window: 3 }).compute(loop)).toEqual({
      repeated_action: -4,
    });
    expect(createRepeatedActionPenalty({ mode: 'count', window: 3, ignore: ['LOOK'] }).compute(loop)).toEqual(
      {
        repeated_action: -3,
      },
    );
  });
});

describe('overlong (DAPO soft punishment)', () => {
  it('is 0 up to L_max - L_cache, linear down to -1 at L_max, and -1 beyond', () => {
    expect([80, 81, 90, 100, 101].map((length) => overlongPenalty(length, 100, 20))).toEqual([
      0, -0.05, -0.5, -1, -1,
    ]);
  });

  it('takes the worst generation by default and the episode total on request, counting model tokens only', () => {
    const played = episodeRecord([]);
    played.turns = [
      turnRecord(0, 'a', { generations: [generationRecord(50, 400)] }),
      turnRecord(1, 'b', { generations: [generationRecord(90, 400)] }),
    ];
    expect(createOverlongPenalty({ maxLength: 100, cacheLength: 20 }).compute(played)).toEqual({
      overlong: -0.5,
    });
    expect(
      createOverlongPenalty({ maxLength: 200, cacheLength: 100, scope: 'episode' }).compute(played),
    ).toEqual({
      overlong: -0.4,
    });
  });

  it('measures text without token ids only with countTokens, and says so otherwise', () => {
    const played = episodeRecord([]);
    played.turns = [
      turnRecord(0, 'a', { generations: [{ ...generationRecord(0, 0), text: 'one two three four five' }] }),
    ];
    const options = { maxLength: 4, cacheLength: 2 };
    expect(() => createOverlongPenalty(options).compute(played)).toThrow(/pass countTokens/);
    const byWords = createOverlongPenalty(options, { countTokens: (text) => text.split(' ').length });
    expect(byWords.compute(played)).toEqual({ overlong: -1 });
  });

  it('rejects a ramp longer than the limit', () => {
    expect(() => createOverlongPenalty({ maxLength: 10, cacheLength: 20 })).toThrow(
      /cacheLength must be <= maxLength/,
    );
  });
});
