import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatMessage, createRng } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdamW } from '../adamw';
import { initBackend } from '../backend';
import { renderChat } from '../chat-template';
import { writeCheckpoint } from '../checkpoint';
import { tinyHfModels } from '../hf/tiny-hf-models.testing';
import { inScope, TransformerModel } from '../model';
import { TfjsPolicy } from '../policy';
import { END_ID, Tokenizer } from '../tokenizer';
import { exportHf } from './export-hf';

const { reference, run: python } = tinyHfModels(
  '@pilotrl/policy-tfjs export to Hugging Face against transformers',
);

const CORPUS = [
  '<|system|>You are in the middle of a room.<|end|><|user|>Your task is to: put a clean mug in the coffeemachine.<|end|>',
  '<|assistant|><thought>the mug is in cabinet 12</thought><action>go to cabinet 12</action><|end|>',
  'Nothing happens.  You see a mug 1, a knife 2, and a plate 3.\n\nOn the countertop 1, you see an apple.',
  'café naïve 東京 😀 — «quoted» 2024-12-05 tab\there   spaces   \n\n',
  // Characters that are whitespace to one regex engine and not to another, merged with neighbours.
  '\u0085\u0085! \u0085\u0085! \u0085\u0085! \ufeff\ufeff \ufeff\ufeff \ufeff\ufeff',
];
const TEXTS = [
  'go to cabinet 12, then take mug 1 from cabinet 12.',
  '  leading spaces, trailing   \n\n\n',
  'café naïve 東京 😀 unseen Ünïcödé\u00a0nbsp\u2003em\u3000ideographic',
  '<|user|>specials inline<thought>x</thought><action>y</action><|end|><pad>',
  '<|end|<|en d|>< |user|> not quite specials',
  'tabs\tand\r\nCRLF\u2028line sep\ufeffbom\u0085nel',
  'z\u0085\u0085! \ufeff\ufeffa',
  '123456789 3.14159 -42',
  '',
];
const CHATS: { messages: ChatMessage[]; add_generation_prompt: boolean }[] = [
  {
    messages: [
      { role: 'system', content: 'You are in the middle of a room.' },
      { role: 'user', content: 'Your task is to: put a clean mug in the coffeemachine.' },
    ],
    add_generation_prompt: true,
  },
  {
    messages: [
      { role: 'user', content: '  look  ' },
      { role: 'assistant', content: '<thought>look first</thought><action>look</action>' },
      { role: 'user', content: 'You see a mug 1.\n' },
    ],
    add_generation_prompt: false,
  },
];

const MAX_NEW_TOKENS = 12;

interface Answer {
  logits: number[][][];
  greedy: number[][];
  encoded: number[][];
  chat: { text: string; ids: number[] }[];
}

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-hf-export-'));
const tokenizer = Tokenizer.train(CORPUS, { vocabSize: 360 });
const config = {
  vocabSize: tokenizer.vocabSize,
  dModel: 32,
  nLayers: 2,
  nHeads: 4,
  contextLength: 48,
  mlpRatio: 3,
};
let rows: number[][] = [];
let prompts: number[][] = [];

/** Our logits [time, vocab] of each row, from position 0. */
function ourLogits(model: TransformerModel, row: readonly number[]): number[] {
  return inScope(() => {
    const ids = tf.tensor2d([[...row]], [1, row.length], 'int32');
    const positions = tf.tensor2d([row.map((_, i) => i)], [1, row.length], 'int32');
    return Array.from(model.logits(model.run(ids, positions, null).hidden).dataSync());
  });
}

/** Greedy continuation of `prompt` by full passes, ending after the end token as generate does. */
function ourGreedy(model: TransformerModel, prompt: readonly number[]): number[] {
  const ids = [...prompt];
  for (let step = 0; step < MAX_NEW_TOKENS; step++) {
    const logits = ourLogits(model, ids).slice(-tokenizer.vocabSize);
    const next = logits.indexOf(Math.max(...logits));
    ids.push(next);
    if (next === END_ID) break;
  }
  return ids.slice(prompt.length);
}

describe.skipIf(!reference.run)('export to Hugging Face against transformers', () => {
  let drawn: TransformerModel;
  let policy: TfjsPolicy;
  let answer: Answer;

  beforeAll(async () => {
    expect(reference.installed, 'run packages/policy-tfjs/reference/setup.sh first').toBe(true);
    await initBackend();
    // Every weight drawn at random, biases and norm gains included, so that a misplaced one shows.
    const rng = createRng(7);
    const shapes = new TransformerModel(config);
    const random = new Map(
      [...shapes.weights].map(([name, weight]) => {
        const gain = name.endsWith('.g') ? 1 : 0;
        const values = Float32Array.from({ length: weight.size }, () => gain + 0.3 * rng.normal());
        return [name, tf.tensor(values, weight.shape)] as const;
      }),
    );
    shapes.dispose();
    drawn = new TransformerModel(config, random);
    for (const tensor of random.values()) tensor.dispose();
    const checkpoint = join(scratch, 'checkpoint');
    await writeCheckpoint(checkpoint, {
      model: drawn.config,
      tokenizer: tokenizer.toJSON(),
      version: 3,
      weights: drawn.weights,
      optimizer: new AdamW(),
    });
    policy = await TfjsPolicy.load(checkpoint);
    const exported = await exportHf(checkpoint, join(scratch, 'hf'));
    expect(exported.version).toBe(3);
    const longest = (ids: number[]) => ids.slice(0, config.contextLength);
    rows = [
      ...TEXTS.slice(0, 3).map((text) => longest(policy.encode(text))),
      longest(renderChat(policy.tokenizer, CHATS[0]!.messages)),
      Array.from({ length: config.contextLength }, (_, i) => (i * 37 + 5) % tokenizer.vocabSize),
    ];
    prompts = CHATS.map((chat) => renderChat(policy.tokenizer, chat.messages).slice(-24));
    const request = { ids: rows, prompts, max_new_tokens: MAX_NEW_TOKENS, texts: TEXTS, chats: CHATS };
    const answers = JSON.parse(await python(['query', join(scratch, 'hf')], JSON.stringify(request)));
    answer = (answers as Record<string, Answer>).hf!;
  });

  afterAll(() => {
    policy?.dispose();
    drawn?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('config.json names GPT2LMHeadModel with our shape', () => {
    const written = JSON.parse(readFileSync(join(scratch, 'hf', 'config.json'), 'utf8'));
    expect(written).toMatchObject({
      architectures: ['GPT2LMHeadModel'],
      n_embd: 32,
      n_layer: 2,
      n_head: 4,
      n_inner: 96,
      n_positions: 48,
      vocab_size: tokenizer.vocabSize,
    });
  });

  it("logits at every position equal transformers' within 1e-4", () => {
    expect(answer.logits).toHaveLength(rows.length);
    let largest = 0;
    for (const [r, row] of rows.entries()) {
      const ours = ourLogits(drawn, row);
      const theirs = answer.logits[r]!.flat();
      expect(theirs).toHaveLength(ours.length);
      for (let i = 0; i < ours.length; i++) largest = Math.max(largest, Math.abs(ours[i]! - theirs[i]!));
    }
    console.info(
      `export to Hugging Face: largest logit difference from transformers ${largest.toExponential(2)}`,
    );
    expect(largest).toBeLessThan(1e-4);
  });

  it("generate's greedy tokens are ours", () => {
    expect(answer.greedy).toEqual(prompts.map((prompt) => ourGreedy(drawn, prompt)));
  });

  it('AutoTokenizer encodes every text as our tokenizer does', () => {
    expect(answer.encoded).toEqual(TEXTS.map((text) => policy.encode(text)));
  });

  it('apply_chat_template gives the ids of our chat rendering', () => {
    for (const [c, chat] of CHATS.entries()) {
      expect(answer.chat[c]!.ids).toEqual(
        renderChat(policy.tokenizer, chat.messages, chat.add_generation_prompt),
      );
    }
  });
});
