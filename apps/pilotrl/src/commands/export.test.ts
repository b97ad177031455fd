import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HfPolicy,
  loadHfPretrained,
  parameterCount,
  shutdownBackend,
  TfjsPolicy,
  Tokenizer,
} from '@pilotrl/policy-tfjs';
import { writeTinyHfDir } from '@pilotrl/policy-tfjs/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { capturedIo } from '../tiny-corridor.testing';

let root: string;
let runDir: string;
let weights: number;
// A `policy.kind: hf` run with LoRA on a tiny random Qwen3 directory, trained two steps so that the
// adapters are no longer zero.
let modelDir: string;
let hfRunDir: string;
const LORA = { rank: 2, alpha: 4, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] };
const HF_CHECKPOINT = 'iter-000003';
const HF_ROWS = [
  Array.from({ length: 16 }, (_, i) => (i * 53 + 7) % 265),
  Array.from({ length: 16 }, (_, i) => (i * 11 + 200) % 265),
];

async function run(args: string[]) {
  const io = capturedIo();
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pilotrl-export-'));
  // A run directory as training leaves it: checkpoints/latest naming iter-N, whose policy/ is the checkpoint.
  runDir = join(root, 'run');
  const tokenizer = Tokenizer.train(['go to the desk', 'open the drawer'], { vocabSize: 275 });
  const model = { dModel: 8, nLayers: 1, nHeads: 2, contextLength: 16 };
  weights = parameterCount({ ...model, vocabSize: tokenizer.vocabSize });
  const policy = await TfjsPolicy.create({ tokenizer, model });
  await policy.saveState(join(runDir, 'checkpoints', 'iter-000002', 'policy'));
  policy.dispose();
  await writeFile(join(runDir, 'checkpoints', 'latest'), 'iter-000002\n');

  modelDir = writeTinyHfDir(join(root, 'model'), 5);
  hfRunDir = join(root, 'hf-run');
  const hf = await HfPolicy.load(modelDir, { lora: LORA });
  try {
    const tokenIds = HF_ROWS[0]!;
    for (let step = 0; step < 2; step++) {
      await hf.forwardBackward(
        [{ tokenIds, weights: tokenIds.map((_, t) => (t < 3 ? 0 : 1)) }],
        'cross_entropy',
      );
      await hf.optimStep({ learningRate: 0.05 });
    }
    await hf.saveState(join(hfRunDir, 'checkpoints', HF_CHECKPOINT, 'policy'));
  } finally {
    hf.dispose();
  }
  await writeFile(join(hfRunDir, 'checkpoints', 'latest'), `${HF_CHECKPOINT}\n`);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  shutdownBackend();
});

/** Logprobs and entropies of HF_ROWS by the Hugging Face model in `dir`, opened as transformers would. */
async function exportedScores(dir: string): Promise<{ logprobs: number[][]; entropies: number[][] }> {
  const { model } = await loadHfPretrained(dir);
  try {
    const vocab = model.config.vocabSize;
    const logits = await model.logitsOf(HF_ROWS);
    const logprobs: number[][] = [];
    const entropies: number[][] = [];
    HF_ROWS.forEach((row, r) => {
      logprobs.push([0]);
      entropies.push([0]);
      for (let t = 1; t < row.length; t++) {
        const at = logits.subarray((r * row.length + t - 1) * vocab, (r * row.length + t) * vocab);
        const top = Math.max(...at);
        const logSum = top + Math.log(at.reduce((sum, x) => sum + Math.exp(x - top), 0));
        logprobs[r]!.push(at[row[t]!]! - logSum);
        entropies[r]!.push(-at.reduce((sum, x) => sum + Math.exp(x - logSum) * (x - logSum), 0));
      }
    });
    return { logprobs, entropies };
  } finally {
    model.dispose();
  }
}

/** The same, by the run's last checkpoint loaded as the run loads it: an HfPolicy with LoRA. */
async function checkpointScores(): Promise<{ logprobs: number[][]; entropies: number[][] }> {
  const policy = await HfPolicy.load(modelDir, { lora: LORA });
  try {
    await policy.loadState(join(hfRunDir, 'checkpoints', HF_CHECKPOINT, 'policy'));
    const results = await policy.forward(
      HF_ROWS.map((tokenIds) => ({ tokenIds, weights: tokenIds.map((_, t) => (t === 0 ? 0 : 1)) })),
    );
    return { logprobs: results.map((r) => r.logprobs), entropies: results.map((r) => r.entropies!) };
  } finally {
    policy.dispose();
  }
}

/** The largest |a − b| of two equal-shaped tables. */
function largestDifference(a: number[][], b: number[][]): number {
  expect(a.map((row) => row.length)).toEqual(b.map((row) => row.length));
  return Math.max(...a.flatMap((row, r) => row.map((x, t) => Math.abs(x - b[r]![t]!))));
}

describe('pilotrl export', () => {
  it("exports a run directory's latest checkpoint as a Hugging Face model directory", async () => {
    const out = join(root, 'hf');
    const result = await run(['export', runDir, '--format', 'hf', out]);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toBe(
      `${out}: Hugging Face GPT2LMHeadModel (${weights} weights, policy version 0) and tokenizer from ${join(runDir, 'checkpoints', 'iter-000002', 'policy')}\n`,
    );
    expect((await readdir(out)).sort()).toEqual([
      'config.json',
      'generation_config.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
  });

  it('refuses an unknown format, a directory that is not a checkpoint and a non-empty output, in one line', async () => {
    const out = join(root, 'refused');
    const unknown = await run(['export', runDir, '--format', 'onnx', out]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe(
      "pilotrl export: option '--format <name>' argument 'onnx' is invalid. Allowed choices are hf.; see pilotrl export --help\n",
    );
    const notCheckpoint = join(root, 'empty');
    await mkdir(notCheckpoint);
    const missing = await run(['export', notCheckpoint, '--format', 'hf', out]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(
      new RegExp(
        `^pilotrl export: no checkpoint at ${notCheckpoint}: checkpoint.json cannot be read \\(.*\\)\\n$`,
      ),
    );
    const taken = join(root, 'taken');
    await mkdir(taken);
    await writeFile(join(taken, 'model.safetensors'), '');
    const nonEmpty = await run(['export', runDir, '--format', 'hf', taken]);
    expect(nonEmpty).toMatchObject({
      code: 1,
      err: `pilotrl export: output ${taken} is not empty (it holds model.safetensors); give a new or empty directory\n`,
    });
    expect(existsSync(out)).toBe(false);
  });

  it('exports a LoRA run of a Hugging Face model merged, with the logits of its last checkpoint, or as a PEFT adapter', async () => {
    const state = join(hfRunDir, 'checkpoints', HF_CHECKPOINT, 'policy');
    const merged = join(root, 'hf-merged');
    const result = await run(['export', hfRunDir, '--format', 'hf', merged]);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(
      new RegExp(
        `^${merged}: Hugging Face Qwen3ForCausalLM \\(\\d+ weights, policy version 2\\) and tokenizer from ${state}\\n$`,
      ),
    );
    const exported = await exportedScores(merged);
    const trained = await checkpointScores();
    expect(largestDifference(exported.logprobs, trained.logprobs)).toBeLessThan(1e-5);
    expect(largestDifference(exported.entropies, trained.entropies)).toBeLessThan(1e-5);

    // The checkpoint directory and the state directory name the same state as the run directory.
    for (const source of [join(hfRunDir, 'checkpoints', HF_CHECKPOINT), state]) {
      const adapter = join(root, `hf-adapter-${source.length}`);
      const written = await run(['export', source, '--format', 'hf', '--lora', 'adapter', adapter]);
      expect(written).toMatchObject({ code: 0, err: '' });
      expect(written.out).toMatch(
        new RegExp(
          `^${adapter}: Hugging Face PEFT LoRA adapter \\(\\d+ weights, policy version 2\\) and tokenizer from ${state}\\n$`,
        ),
      );
      expect((await readdir(adapter)).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
      const config = JSON.parse(await readFile(join(adapter, 'adapter_config.json'), 'utf8'));
      expect(config).toMatchObject({
        peft_type: 'LORA',
        r: LORA.rank,
        lora_alpha: LORA.alpha,
        base_model_name_or_path: modelDir,
      });
    }
  });

  it('refuses an adapter of a run without LoRA, in one line', async () => {
    const out = join(root, 'no-adapter');
    const fullState = join(root, 'hf-full', 'policy');
    const full = await HfPolicy.load(modelDir);
    try {
      await full.saveState(fullState);
    } finally {
      full.dispose();
    }
    const everyWeight = await run(['export', fullState, '--format', 'hf', '--lora', 'adapter', out]);
    expect(everyWeight).toMatchObject({
      code: 1,
      err: `pilotrl export: ${join(fullState, 'hf-policy.json')}: the state trains every weight of its model (lora is null), so it has no LoRA adapter to export; export it merged, as a whole model\n`,
    });
    const refused = await run(['export', runDir, '--format', 'hf', '--lora', 'adapter', out]);
    expect(refused).toMatchObject({
      code: 1,
      err: `pilotrl export: ${join(runDir, 'checkpoints', 'iter-000002', 'policy')} holds no HfPolicy state (hf-policy.json), so no LoRA adapter to export; export our own transformer's checkpoints as whole models\n`,
    });
    const unknown = await run(['export', hfRunDir, '--format', 'hf', '--lora', 'split', out]);
    expect(unknown.err).toBe(
      "pilotrl export: option '--lora <how>' argument 'split' is invalid. Allowed choices are merge, adapter.; see pilotrl export --help\n",
    );
    expect(existsSync(out)).toBe(false);
  });
});
