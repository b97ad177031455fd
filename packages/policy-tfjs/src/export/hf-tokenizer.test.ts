import { describe, expect, it } from 'vitest';
import { renderChat } from '../chat-template';
import { BpeTokenizer } from '../hf/bpe-tokenizer';
import { Tokenizer } from '../tokenizer';
import { hfTokenizerConfig, hfTokenizerJson } from './hf-tokenizer';

const tokenizer = Tokenizer.train(
  [
    '<|user|>Your task is to: put a clean mug in the coffeemachine.<|end|><|assistant|>go to cabinet 12<|end|>',
    '<thought>the mug is in cabinet 12</thought><action>take mug 1 from cabinet 12</action>',
    'café naïve 東京 😀 tab\there   spaces   \n\n  \u00a0\u00a0 nbsp',
    // Characters that are whitespace to one regex engine and not to another, between spaces.
    '\u0085\u0085! \u0085\u0085! \u0085\u0085! \ufeff\ufeff \ufeff\ufeff \ufeff\ufeff',
  ],
  { vocabSize: 400 },
);
const TEXTS = [
  'take mug 12 from cabinet 12, then go to the coffeemachine.',
  '   leading and trailing spaces   \n\n\n',
  '\u00a0\u00a0nbsp\u3000ideographic\ufeffbom\u0085nel\u2028line\u2029para\u000bvt',
  'z\u0085\u0085! \ufeff\ufeffa',
  'café naïve 東京 😀 Ünïcödé',
  '<|user|>x<|end|><pad></thought><|en d|>< |user|>',
  '',
];
const bytes = (text: string) => [...new TextEncoder().encode(text)].map((b) => b + 11);

describe('tokenizer.json of our tokenizer', () => {
  const exported = BpeTokenizer.parse('tokenizer.json', hfTokenizerJson(tokenizer));

  it('encodes and decodes every text as our tokenizer does, special tokens at their ids', () => {
    expect(exported.vocabSize).toBe(tokenizer.vocabSize);
    for (const text of TEXTS) {
      expect(exported.encode(text)).toEqual(tokenizer.encode(text));
      expect(exported.decode(tokenizer.encode(text))).toBe(text);
    }
    expect(exported.tokenId('<|end|>')).toBe(1);
    expect(exported.tokenId('<pad>')).toBe(0);
  });

  it('encodes a rendered chat as renderChat does', () => {
    const messages = [
      { role: 'system', content: 'You are in a room.' },
      { role: 'user', content: '  go to cabinet 12  ' },
      { role: 'assistant', content: '<action>go to cabinet 12</action>' },
    ] as const;
    const text = messages.map((m) => `<|${m.role}|>${m.content}<|end|>`).join('');
    expect(exported.encode(`${text}<|assistant|>`)).toEqual(renderChat(tokenizer, messages));
    expect(hfTokenizerConfig(64)).toMatchObject({
      eos_token: '<|end|>',
      pad_token: '<pad>',
      model_max_length: 64,
    });
  });

  it('refuses a tokenizer whose merges make the same bytes twice, naming the tokens', () => {
    const [x, y, z] = bytes('xyz');
    const twice = Tokenizer.fromJSON({
      ...tokenizer.toJSON(),
      merges: [
        [x, y],
        [y, z],
        [267, z],
        [x, 268],
      ],
    });
    expect(() => hfTokenizerJson(twice)).toThrow(
      'tokens 269 and 270 of this tokenizer are both "xyz"; a tokenizer.json gives each string one id',
    );
  });
});
