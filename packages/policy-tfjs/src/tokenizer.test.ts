import { InvalidArgumentError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { END_ID, SPECIAL_TOKENS, Tokenizer } from './tokenizer';

const corpus = [
  'You arrive at cabinet 2. The cabinet 2 is closed.',
  'On the countertop 1, you see a apple 1, and a mug 2.',
  '<global_plan>Step 1: find the apple. Step 2: take it.</global_plan>',
  '<thought>The apple is on the countertop.</thought><action>take apple 1 from countertop 1</action>',
];

describe('Tokenizer', () => {
  const tokenizer = Tokenizer.train(corpus, { vocabSize: 330 });

  it('round-trips any string, including characters never seen in training', () => {
    for (const text of [
      '',
      'go to cabinet 12',
      'Ünïcødé ✓ 漢字 🙂',
      'tabs\tand\nnewlines  ',
      '\u0000\uffff',
    ]) {
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    }
  });

  it('encodes agent tags and chat markers as single special tokens', () => {
    for (const token of SPECIAL_TOKENS) {
      expect(tokenizer.encode(token)).toEqual([tokenizer.specialId(token)]);
    }
    const ids = tokenizer.encode('<action>open fridge 1</action>');
    expect(ids[0]).toBe(tokenizer.specialId('<action>'));
    expect(ids.at(-1)).toBe(tokenizer.specialId('</action>'));
    expect(tokenizer.specialId('<|end|>')).toBe(END_ID);
  });

  it('learns merges that shorten text like the corpus', () => {
    const text = 'You arrive at cabinet 2. On the countertop 1, you see a mug 2.';
    expect(tokenizer.encode(text).length).toBeLessThan(new TextEncoder().encode(text).length * 0.6);
    expect(tokenizer.vocabSize).toBeLessThanOrEqual(330);
  });

  it('trains deterministically and survives serialisation', () => {
    const again = Tokenizer.train(corpus, { vocabSize: 330 });
    expect(again.toJSON()).toEqual(tokenizer.toJSON());
    const restored = Tokenizer.fromJSON(JSON.parse(JSON.stringify(tokenizer.toJSON())));
    const text = 'take mug 2 from countertop 1 <thought>hmm</thought>';
    expect(restored.encode(text)).toEqual(tokenizer.encode(text));
  });

  it('rejects a damaged serialisation and out-of-vocabulary ids with clear errors', () => {
    expect(() => Tokenizer.fromJSON({ formatVersion: 1, specialTokens: [], merges: [] })).toThrow(
      /special tokens/,
    );
    expect(() => Tokenizer.fromJSON({ merges: 'x' })).toThrow(InvalidArgumentError);
    expect(() => tokenizer.decode([99999])).toThrow(/outside this tokenizer's vocabulary/);
  });
});
