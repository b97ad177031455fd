import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { chatMlRenderer, replyDatum } from './chat-renderer';
import { loadTokenizer } from './tokenizer';

const fixture = join(import.meta.dirname, '../test/fixtures/tiny-tokenizer');
const python = JSON.parse(readFileSync(join(fixture, 'python-ids.json'), 'utf8')) as {
  cases: { text: string; ids: number[] }[];
};

describe('loadTokenizer', () => {
  it("encodes as Python's tokenizers does with the same byte-level BPE tokenizer.json", async () => {
    const tokenizer = await loadTokenizer(fixture);
    for (const { text, ids } of python.cases) {
      expect(tokenizer.encode(text)).toEqual(ids);
      expect(tokenizer.decode(ids)).toBe(text);
    }
    expect(tokenizer.vocabSize).toBe(344);
    expect(tokenizer.tokenId('<|im_end|>')).toBe(2);
  });

  it('says which directory lacks a tokenizer', async () => {
    await expect(loadTokenizer(join(fixture, 'nowhere'))).rejects.toSatisfy(
      (error) =>
        CheckpointError.isInstance(error) && /nowhere\/tokenizer\.json/.test((error as Error).message),
    );
  });
});

describe('chatMlRenderer', () => {
  it("renders ChatML with the assistant's turn opened, and stops on <|im_end|>", async () => {
    const tokenizer = await loadTokenizer(fixture);
    const renderer = chatMlRenderer(tokenizer);
    const ids = renderer.render([{ role: 'user', content: 'Go.' }]);
    expect(tokenizer.decode(ids)).toBe('<|im_start|>user\nGo.<|im_end|>\n<|im_start|>assistant\n');
    expect(renderer.stopTokenIds).toEqual([2]);
  });

  it('makes a reply datum: the prompt unweighted, the reply and <|im_end|> weighted', async () => {
    const tokenizer = await loadTokenizer(fixture);
    const renderer = chatMlRenderer(tokenizer);
    const messages = [{ role: 'user' as const, content: 'Go.' }];
    const datum = replyDatum(renderer, tokenizer, messages, 'go to countertop 1');
    const prompt = renderer.render(messages);
    expect(datum.tokenIds.slice(0, prompt.length)).toEqual(prompt);
    expect(tokenizer.decode(datum.tokenIds.slice(prompt.length))).toBe('go to countertop 1<|im_end|>');
    expect(datum.weights).toEqual(datum.tokenIds.map((_, i) => (i < prompt.length ? 0 : 1)));
  });
});
