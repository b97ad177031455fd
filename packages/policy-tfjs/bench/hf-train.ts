// Training speed of a Hugging Face model through HfPolicy on one backend: a first training step
// (forward + backward + AdamW, every weight), then a few timed ones, as tokens per second. The
// model is HF_MODEL_DIR (a Qwen3 or Llama directory) when given, else a random Qwen3 directory of
// the size asked, written with the package's test fixture. One backend per process: the native
// bindings cannot share one, so tooling/gpu-check.sh runs it once on the GPU and once on the CPU.
//
//   node --conditions=@pilotrl/source --import tsx bench/hf-train.ts --backend=tensorflow
//   ... --hidden=128 --layers=2 --vocab=1024 --batch=2 --seq=64 --steps=2   # a small model
//   ... --json=figures.json                                                 # also the figures as JSON
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Datum } from '@pilotrl/core';
import { type BackendChoice, describeBackend, HfPolicy, shutdownBackend } from '../src/index';
import { writeTinyHfDir } from '../src/test';

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, '').split('=');
    return [key!, value ?? 'true'] as const;
  }),
);
/** A whole number ≥ 1 from `--name=N`, or `fallback`. */
function whole(name: string, fallback: number): number {
  const value = Number(args.get(name) ?? fallback);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a whole number of at least 1`);
  return value;
}

const backend = (args.get('backend') ?? 'tensorflow') as BackendChoice;
/** The random model's size when no HF_MODEL_DIR is given (heads of 64, two key-value heads in four). */
const hidden = whole('hidden', 512);
const layers = whole('layers', 8);
const vocab = whole('vocab', 8192);
/** Sequences a step, tokens a sequence, timed steps after the first. */
const batch = whole('batch', 8);
const seq = whole('seq', 256);
const steps = whole('steps', 3);

const given = process.env.HF_MODEL_DIR;
const scratch = given === undefined ? mkdtempSync(join(tmpdir(), 'pilotrl-hf-train-')) : undefined;
try {
  const headDim = Math.min(64, hidden);
  const heads = Math.max(1, Math.floor(hidden / headDim));
  const modelDir =
    given ??
    writeTinyHfDir(join(scratch!, 'model'), 1, {
      vocabSize: vocab,
      hiddenSize: hidden,
      intermediateSize: 3 * hidden,
      numLayers: layers,
      numHeads: heads,
      numKvHeads: Math.max(1, Math.floor(heads / 2)),
      headDim,
      maxPositions: Math.max(seq, 128),
    });
  const policy = await HfPolicy.load(modelDir, { backend });
  try {
    const config = policy.config;
    const ids = policy.tokenizer.vocabSize;
    // Fixed token ids over the tokenizer's range, the first of each sequence unweighted (it has no prediction).
    const datums: Datum[] = Array.from({ length: batch }, (_, b) => {
      const tokenIds = Array.from({ length: seq }, (_, t) => (b * 7919 + t * 104729) % ids);
      return { tokenIds, weights: tokenIds.map((_, t) => (t === 0 ? 0 : 1)) };
    });
    const step = async () => {
      const started = performance.now();
      await policy.forwardBackward(datums, 'cross_entropy');
      await policy.optimStep({ learningRate: 1e-5 });
      return (performance.now() - started) / 1000;
    };
    const model = `${config.modelType} ${given ?? 'random'}: hidden ${config.hiddenSize}, ${config.numLayers} layer${config.numLayers === 1 ? '' : 's'}, vocab ${config.vocabSize}`;
    console.log(`# Hugging Face training on ${describeBackend(policy.backend)}; ${model}`);
    const first = await step();
    let timed = 0;
    for (let i = 0; i < steps; i++) timed += await step();
    const tokensPerSecond = (batch * seq * steps) / timed;
    console.log(
      `training   ${batch}x${seq} tokens/step: first step ${(first * 1000).toFixed(0)} ms, then ${((timed / steps) * 1000).toFixed(0)} ms/step wall over ${steps}; ` +
        `${tokensPerSecond.toFixed(0)} tokens/s`,
    );
    const json = args.get('json');
    if (json !== undefined) {
      writeFileSync(
        json,
        `${JSON.stringify({ backend, model, batch, seq, steps, firstStepSeconds: first, tokensPerSecond })}\n`,
      );
    }
  } finally {
    policy.dispose();
  }
} finally {
  shutdownBackend();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
}
