// The export of HfPolicy states on a tiny random Qwen3 directory (no Python): a LoRA state merged
// into a whole model gives, opened again with loadHfPretrained, the logits of the base model with
// the adapters; a full fine-tune gives its own; a LoRA state as a PEFT adapter holds the trained A
// and B under PEFT's names; and the refusals, each before anything is written.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HF_POLICY_STATE_FILE, HF_TRAINABLE_FILE } from '../hf/hf-policy-state';
import { loadHfPretrained } from '../hf/pretrained';
import { readSafetensors, readSafetensorsHeader } from '../hf/safetensors';
import { TINY_VOCAB_SIZE, writeTinyHfDir } from '../hf/tiny-hf-dir.testing';
import { exportHf } from './export-hf';
import { mergeLora } from './hf-policy-export';
import { openTrainedModel, trainHfState } from './trained-hf-state.testing';

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-hf-policy-export-'));
const baseDir = writeTinyHfDir(join(scratch, 'base'));
writeFileSync(join(baseDir, 'generation_config.json'), JSON.stringify({ eos_token_id: 262 }));
const LORA = {
  rank: 4,
  alpha: 8,
  targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
};
const loraState = join(scratch, 'lora-state');
const fullState = join(scratch, 'full-state');
const ROWS = [
  Array.from({ length: 20 }, (_, i) => (i * 53 + 7) % TINY_VOCAB_SIZE),
  Array.from({ length: 20 }, (_, i) => (i * 11 + 200) % TINY_VOCAB_SIZE),
];

beforeAll(async () => {
  await trainHfState(baseDir, loraState, LORA);
  await trainHfState(baseDir, fullState, undefined, 1);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The largest |a − b| of two equal-length arrays. */
function largestDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let largest = 0;
  for (let i = 0; i < a.length; i++) largest = Math.max(largest, Math.abs(a[i]! - b[i]!));
  return largest;
}

/** Logits of ROWS by the model in `dir`, opened as a user opens one. */
async function exportedLogits(dir: string): Promise<Float32Array> {
  const { model } = await loadHfPretrained(dir);
  try {
    return await model.logitsOf(ROWS);
  } finally {
    model.dispose();
  }
}

/** Logits of ROWS by the base model with the state's trained weights. */
async function trainedLogits(stateDir: string, lora: typeof LORA | undefined): Promise<Float32Array> {
  const { model } = await openTrainedModel(baseDir, stateDir, lora);
  try {
    return await model.logitsOf(ROWS);
  } finally {
    model.dispose();
  }
}

describe('mergeLora', () => {
  it('adds scale·B·A to W', () => {
    const w = Float32Array.of(1, 2, 3, 4, 5, 6); // [2, 3]
    const a = Float32Array.of(1, 0, -1); // [1, 3]
    const b = Float32Array.of(2, -1); // [2, 1]
    expect([...mergeLora(w, [2, 3], a, b, 0.5)]).toEqual([2, 2, 2, 3.5, 5, 6.5]);
  });
});

describe('exportHf of an HfPolicy state', () => {
  it('merges a LoRA state into a whole model that loads with the logits of the adapted one (within 1e-5)', async () => {
    const out = join(scratch, 'merged');
    const result = await exportHf(loraState, out);
    const files = [
      'config.json',
      'chat_template.jinja',
      'generation_config.json',
      'model.safetensors',
      'tokenizer.json',
    ];
    expect((await readdir(out)).sort()).toEqual([...files].sort());
    expect([...result.files].sort()).toEqual([...files].sort());
    expect(result).toMatchObject({ version: 2, architecture: 'Qwen3ForCausalLM' });
    const base = JSON.parse(readFileSync(join(baseDir, 'config.json'), 'utf8'));
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'))).toEqual({ ...base, dtype: 'float32' });
    expect(readFileSync(join(out, 'tokenizer.json'))).toEqual(readFileSync(join(baseDir, 'tokenizer.json')));
    const header = await readSafetensorsHeader(join(out, 'model.safetensors'));
    const baseHeader = await readSafetensorsHeader(join(baseDir, 'model.safetensors'));
    expect([...header.tensors.keys()]).toEqual([...baseHeader.tensors.keys()]);
    expect(result.parameters).toBe(
      [...header.tensors.values()].reduce((n, t) => n + t.shape.reduce((a, b) => a * b, 1), 0),
    );

    const merged = await exportedLogits(out);
    const adapted = await trainedLogits(loraState, LORA);
    const fromBase = largestDifference(await exportedLogits(baseDir), adapted);
    const difference = largestDifference(merged, adapted);
    console.info(
      `merged LoRA export: largest logit difference ${difference.toExponential(2)} (the adapters move logits by up to ${fromBase.toFixed(2)})`,
    );
    expect(fromBase).toBeGreaterThan(0.1);
    expect(difference).toBeLessThan(1e-5);
  });

  it('writes a full fine-tune with its trained weights', async () => {
    const out = join(scratch, 'full');
    await exportHf(fullState, out, { lora: 'merge' });
    const trained = await trainedLogits(fullState, undefined);
    expect(largestDifference(await exportedLogits(out), trained)).toBeLessThan(1e-5);
    expect(largestDifference(await exportedLogits(baseDir), trained)).toBeGreaterThan(0.1);
  });

  it("writes a LoRA state as a PEFT adapter: PEFT's config and the trained A and B under PEFT's names", async () => {
    const out = join(scratch, 'adapter');
    const result = await exportHf(loraState, out, { lora: 'adapter' });
    expect((await readdir(out)).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    expect(result).toMatchObject({ version: 2, architecture: 'PEFT LoRA adapter' });
    expect(JSON.parse(readFileSync(join(out, 'adapter_config.json'), 'utf8'))).toMatchObject({
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      base_model_name_or_path: baseDir,
      r: 4,
      lora_alpha: 8,
      target_modules: [...LORA.targetModules].sort(),
      lora_dropout: 0,
      bias: 'none',
      fan_in_fan_out: false,
    });
    const header = await readSafetensorsHeader(join(out, 'adapter_model.safetensors'));
    const stateHeader = await readSafetensorsHeader(join(loraState, HF_TRAINABLE_FILE));
    expect(header.tensors.size).toBe(2 * 2 * LORA.targetModules.length);
    expect(header.tensors.has('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight')).toBe(true);
    const ours = await readSafetensors(stateHeader, stateHeader.tensors.keys());
    const theirs = await readSafetensors(header, header.tensors.keys());
    expect(theirs).toEqual(new Map([...ours].map(([name, values]) => [`base_model.model.${name}`, values])));
    expect(result.parameters).toBe([...ours.values()].reduce((n, v) => n + v.length, 0));
  });
});

describe('exportHf refuses, in one line and before writing anything', () => {
  /** A copy of the LoRA state with `edit` applied to its hf-policy.json. */
  function editedState(
    name: string,
    edit: (manifest: { base: { dir: string; config: Record<string, unknown> } }) => void,
  ) {
    const dir = join(scratch, name);
    cpSync(loraState, dir, { recursive: true });
    const file = join(dir, HF_POLICY_STATE_FILE);
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    edit(manifest);
    writeFileSync(file, JSON.stringify(manifest));
    return dir;
  }

  it('a state whose base model directory is gone', async () => {
    const gone = join(scratch, 'gone-model');
    const state = editedState('state-of-gone-model', (m) => {
      m.base.dir = gone;
    });
    const out = join(scratch, 'refused-gone');
    await expect(exportHf(state, out)).rejects.toThrow(
      `${join(state, HF_POLICY_STATE_FILE)}: the base model ${gone} is gone (no config.json there); the export needs the model the state was trained on, in that directory`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a state whose base model directory has another config than it was trained on', async () => {
    const state = editedState('state-of-other-config', (m) => {
      m.base.config.rmsNormEps = 1e-5;
    });
    const out = join(scratch, 'refused-config');
    await expect(exportHf(state, out, { lora: 'adapter' })).rejects.toThrow(
      `${join(state, HF_POLICY_STATE_FILE)}: base.config.rmsNormEps is 0.00001 but ${join(baseDir, 'config.json')} now gives 0.000001; the base model changed since the state was trained: restore the model it was trained on`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('an adapter of a full fine-tune, and of a checkpoint of our own transformer', async () => {
    const out = join(scratch, 'refused-adapter');
    await expect(exportHf(fullState, out, { lora: 'adapter' })).rejects.toThrow(
      `${join(fullState, HF_POLICY_STATE_FILE)}: the state trains every weight of its model (lora is null), so it has no LoRA adapter to export; export it merged, as a whole model`,
    );
    const notHf = join(scratch, 'not-hf');
    mkdirSync(notHf);
    await expect(exportHf(notHf, out, { lora: 'adapter' })).rejects.toThrow(
      `${notHf} holds no HfPolicy state (hf-policy.json), so no LoRA adapter to export`,
    );
    await expect(exportHf(loraState, out, { lora: 'both' as 'merge' })).rejects.toThrow('lora');
    expect(existsSync(out)).toBe(false);
  });

  it('an output directory that is not empty, leaving it as it was', async () => {
    const out = join(scratch, 'taken');
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'mine');
    await expect(exportHf(loraState, out)).rejects.toThrow(
      `output ${out} is not empty (it holds notes.txt); give a new or empty directory`,
    );
    expect(await readdir(out)).toEqual(['notes.txt']);
  });
});
