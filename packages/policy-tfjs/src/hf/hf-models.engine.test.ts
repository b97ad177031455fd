import { copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '@pilotrl/core';
import { PilotRLError } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackendChoice, initBackend } from '../backend';
import { nativeInstallState, nativePackageDir } from '../native/native-install';
import { BpeTokenizer } from './bpe-tokenizer';
import { readChatTemplate } from './hf-chat-template';
import { loadHfPretrained } from './pretrained';
import { tinyHfModels } from './tiny-hf-models.testing';

const { reference, run: python } = tinyHfModels(
  "@pilotrl/policy-tfjs's Hugging Face decoders against transformers",
);
const nativeReady = nativeInstallState('cpu', nativePackageDir('cpu')).state === 'ready';
const MODELS = ['qwen3', 'llama', 'qwen3-bf16'] as const;
const BACKENDS: BackendChoice[] = ['tensorflow', 'wasm'];
const MAX_NEW_TOKENS = 12;

interface Answer {
  logits: number[][][];
  greedy: number[][];
  encoded: number[][];
  chat: { text: string; ids: number[] }[];
}

const TEXTS = [
  'Count from 1 to 20: 12345, 2024.',
  ' héllo  wörld\n\ttabs ✓ 😀 東京',
  "It's I'LL we've DON'T <|im_start|>user\nhi<|im_end|><|eot_id|>",
  'Cre\u0300me bru\u0302le\u0301e, naïve café',
  '   leading spaces and trailing   \n\n\n',
  '<think>\nreasoning\n</think>\n\nanswer<|begin_of_text|>',
  '',
];
interface Chat {
  messages: ChatMessage[];
  add_generation_prompt: boolean;
  enable_thinking?: boolean;
}
const CHATS: Chat[] = [
  {
    messages: [
      { role: 'system', content: 'You are in a room.' },
      { role: 'user', content: 'Your task is to: put a clean mug in the coffeemachine.' },
    ],
    add_generation_prompt: true,
  },
  {
    messages: [
      { role: 'system', content: 'Plan, then act.' },
      { role: 'user', content: '  go to countertop 1  ' },
      { role: 'assistant', content: '<think>\nthe mug is there\n</think>\n\ntake mug 1' },
      { role: 'user', content: 'You take the mug 1.' },
    ],
    add_generation_prompt: true,
    enable_thinking: false,
  },
  {
    messages: [
      { role: 'user', content: 'Hello, world!' },
      { role: 'assistant', content: 'go to fridge 1\n' },
    ],
    add_generation_prompt: false,
  },
];

// Ids below 420 are in every tiny model's vocabulary; rows of several lengths, from position 0.
const ROWS = [
  [5, 17, 230, 99, 3, 411, 64, 64, 8, 150, 151, 152, 7, 300],
  [40, 41, 42],
];
const PROMPTS = [
  [12, 50, 7, 200],
  [300, 301, 9],
];

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-hf-models-'));
const expected = new Map<string, Answer>();

const maxAbsDifference = (a: readonly number[], b: readonly number[]) => {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
};

describe.skipIf(!reference.run)('Hugging Face decoders against transformers', () => {
  beforeAll(async () => {
    expect(reference.installed, 'run packages/policy-tfjs/reference/setup.sh first').toBe(true);
    if (!nativeReady) throw new PilotRLError('the native backend is not set up (pnpm tfjs:doctor says why)');
    await python(['make', scratch]);
    const request = {
      ids: ROWS,
      prompts: PROMPTS,
      max_new_tokens: MAX_NEW_TOKENS,
      texts: TEXTS,
      chats: CHATS,
    };
    const answers = JSON.parse(
      await python(['query', ...MODELS.map((name) => join(scratch, name))], JSON.stringify(request)),
    ) as Record<string, Answer>;
    for (const name of MODELS) expected.set(name, answers[name]!);
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  for (const name of MODELS) {
    it(`${name}: tokenizer.json encodes as AutoTokenizer, the chat template renders as apply_chat_template`, async () => {
      const dir = join(scratch, name);
      const tokenizer = await BpeTokenizer.fromDir(dir);
      const template = await readChatTemplate(dir);
      const want = expected.get(name)!;
      expect(TEXTS.map((text) => tokenizer.encode(text))).toEqual(want.encoded);
      // Decoding gives the text back as the tokenizer normalized it (Qwen's tokenizer: NFC).
      const normalized = (text: string) => (name.startsWith('qwen3') ? text.normalize('NFC') : text);
      for (const text of TEXTS) expect(tokenizer.decode(tokenizer.encode(text))).toBe(normalized(text));
      for (const [c, chat] of CHATS.entries()) {
        const text = template.render(chat.messages, {
          addGenerationPrompt: chat.add_generation_prompt,
          ...(chat.enable_thinking === undefined ? {} : { enableThinking: chat.enable_thinking }),
        });
        expect(text).toBe(want.chat[c]!.text);
        expect(tokenizer.encode(text)).toEqual(want.chat[c]!.ids);
      }
    });
  }

  it("refuses a tokenizer with more ids than the model's vocabulary before reading any weight", async () => {
    const mixed = join(scratch, 'llama-with-qwen-tokenizer');
    cpSync(join(scratch, 'llama'), mixed, { recursive: true });
    copyFileSync(join(scratch, 'qwen3', 'tokenizer.json'), join(mixed, 'tokenizer.json'));
    rmSync(join(mixed, 'model-00001-of-00004.safetensors'));
    await expect(loadHfPretrained(mixed)).rejects.toThrow(
      `${join(mixed, 'tokenizer.json')}: has ids up to 421 but ${join(mixed, 'config.json')}'s vocab_size is 420`,
    );
  });

  for (const backend of BACKENDS) {
    for (const name of MODELS) {
      it(`${name} on ${backend}: logits within 1e-4 of transformers', greedy generations identical`, async () => {
        await initBackend({ backend });
        expect(tf.getBackend()).toBe(backend);
        const { model } = await loadHfPretrained(join(scratch, name));
        const want = expected.get(name)!;
        const tensorsBefore = tf.memory().numTensors;
        try {
          for (const [r, row] of ROWS.entries()) {
            const ours = Array.from(await model.logitsOf([row]));
            const theirs = want.logits[r]!.flat();
            expect(ours.length).toBe(theirs.length);
            expect(maxAbsDifference(ours, theirs)).toBeLessThan(1e-4);
          }
          for (const [p, prompt] of PROMPTS.entries()) {
            expect(await model.greedy(prompt, MAX_NEW_TOKENS)).toEqual(want.greedy[p]);
          }
          // Neither scoring nor decoding with the cache leaves tensors behind.
          expect(tf.memory().numTensors).toBe(tensorsBefore);
        } finally {
          model.dispose();
        }
      });
    }
  }
});
