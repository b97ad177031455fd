// The export of fine-tuned Hugging Face models against transformers and PEFT: the tiny random
// Qwen3 and Llama of tiny_hf_models.py (the Llama sharded, untied, with attention biases) get LoRA
// adapters on all seven linear layers of their blocks, or the Qwen3 trains every weight, two steps
// by HfPolicy, and each saved state is exported merged (a whole model) and, with LoRA, as a PEFT
// adapter. reference/exported_fine_tune.py loads the first with AutoModelForCausalLM and the
// second with PeftModel.from_pretrained on the base: both must compute our trained model's logits
// and greedy generations, and the adapter must be named and configured as PEFT saves its own.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSafetensorsHeader } from '../hf/safetensors';
import { tinyHfModels } from '../hf/tiny-hf-models.testing';
import { exportHf } from './export-hf';
import { openTrainedModel, trainHfState } from './trained-hf-state.testing';

const { reference, runScript } = tinyHfModels(
  '@pilotrl/policy-tfjs export of fine-tuned Hugging Face models against transformers and PEFT',
);
const LORA = {
  rank: 4,
  alpha: 8,
  targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
};
const MAX_NEW_TOKENS = 12;
// Ids below 400 are in the tiny Qwen3's vocabulary.
const ROWS = [
  [5, 17, 230, 99, 3, 311, 64, 64, 8, 150, 151, 152, 7, 300],
  Array.from({ length: 40 }, (_, i) => (i * 37 + 11) % 400),
];
const PROMPTS = [
  [40, 41, 42, 43, 44, 45, 46],
  [300, 12, 77, 5],
];

interface Computed {
  dtype: string;
  logits: number[][][];
  greedy: number[][];
}
interface Answer {
  merged: Computed;
  adapter?: Computed;
  peft?: { names: string[]; config: Record<string, unknown> };
}

const CASES = [
  { model: 'qwen3', lora: LORA },
  { model: 'llama', lora: LORA },
  { model: 'qwen3', lora: undefined },
];
const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-hf-model-export-'));

describe.skipIf(!reference.run)('export of fine-tuned models against transformers and PEFT', () => {
  beforeAll(async () => {
    expect(reference.installed, 'run packages/policy-tfjs/reference/setup.sh first').toBe(true);
    await runScript('tiny_hf_models.py', ['make', scratch]);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  for (const [c, { model: name, lora }] of CASES.entries()) {
    describe(`${name}, ${lora === undefined ? 'every weight trained' : 'LoRA'}`, () => {
      const base = join(scratch, name);
      const merged = join(scratch, `merged-${c}`);
      const adapter = lora === undefined ? null : join(scratch, `adapter-${c}`);
      let answer: Answer;
      let ourLogits: Float32Array[];
      let ourGreedy: number[][];

      beforeAll(async () => {
        const state = join(scratch, `state-${c}`);
        await trainHfState(base, state, lora);
        await exportHf(state, merged);
        if (adapter !== null) await exportHf(state, adapter, { lora: 'adapter' });
        const { model } = await openTrainedModel(base, state, lora);
        try {
          ourLogits = await Promise.all(ROWS.map((row) => model.logitsOf([row])));
          ourGreedy = [];
          for (const prompt of PROMPTS) ourGreedy.push(await model.greedy(prompt, MAX_NEW_TOKENS));
        } finally {
          model.dispose();
        }
        const request = {
          base,
          merged,
          adapter,
          lora:
            lora === undefined
              ? null
              : { rank: lora.rank, alpha: lora.alpha, target_modules: lora.targetModules },
          ids: ROWS,
          prompts: PROMPTS,
          max_new_tokens: MAX_NEW_TOKENS,
        };
        answer = JSON.parse(await runScript('exported_fine_tune.py', [], JSON.stringify(request))) as Answer;
      });

      /** The largest |ours − theirs| over every logit of every row. */
      function largestDifference(theirs: number[][][]): number {
        expect(theirs).toHaveLength(ROWS.length);
        let largest = 0;
        for (const [r, ours] of ourLogits.entries()) {
          const flat = theirs[r]!.flat();
          expect(flat).toHaveLength(ours.length);
          for (let i = 0; i < ours.length; i++) largest = Math.max(largest, Math.abs(ours[i]! - flat[i]!));
        }
        return largest;
      }

      it("the merged model loads in float32 with our trained model's logits within 1e-4 and its greedy tokens", () => {
        expect(answer.merged.dtype).toBe('torch.float32');
        const largest = largestDifference(answer.merged.logits);
        console.info(
          `${name} merged export: largest logit difference from transformers ${largest.toExponential(2)}`,
        );
        expect(largest).toBeLessThan(1e-4);
        expect(answer.merged.greedy).toEqual(ourGreedy);
      });

      // A state that trained every weight has no adapter to export.
      if (adapter !== null) {
        it('the adapter on the base model, loaded by PeftModel, has our logits within 1e-4 and our greedy tokens', () => {
          const largest = largestDifference(answer.adapter!.logits);
          console.info(
            `${name} PEFT adapter export: largest logit difference from PEFT ${largest.toExponential(2)}`,
          );
          expect(largest).toBeLessThan(1e-4);
          expect(answer.adapter!.greedy).toEqual(ourGreedy);
        });

        it('the adapter has the tensor names and the configuration PEFT saves for its own', async () => {
          const header = await readSafetensorsHeader(join(adapter, 'adapter_model.safetensors'));
          const peft = answer.peft!;
          expect([...header.tensors.keys()].sort()).toEqual(peft.names);
          const ours = JSON.parse(readFileSync(join(adapter, 'adapter_config.json'), 'utf8')) as Record<
            string,
            unknown
          >;
          expect(Object.keys(ours).filter((key) => !(key in peft.config))).toEqual([]);
          for (const key of [
            'peft_type',
            'task_type',
            'r',
            'lora_alpha',
            'lora_dropout',
            'bias',
            'fan_in_fan_out',
          ]) {
            expect(ours[key], key).toEqual(peft.config[key]);
          }
          expect(ours.target_modules).toEqual([...(peft.config.target_modules as string[])].sort());
          expect(ours.base_model_name_or_path).toBe(base);
        });
      }
    });
  }
});
