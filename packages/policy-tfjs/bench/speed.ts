// Speed of @pilotrl/policy-tfjs on this machine, on every backend that loads here (native
// TensorFlow and wasm by default): training tokens per wall- and CPU-second (forward + backward +
// AdamW), batch-32 generation tokens/s with and without the KV cache, and constrained choice
// requests/s with packed scoring against one sequence per command, for two model sizes, next to
// the same model trained in PyTorch (tooling/bench/torch_reference.py) when its venv exists.
// Ends with one table of the ratios: each backend against PyTorch, and native against wasm.
//
//   pnpm bench                             # both sizes, every backend that loads
//   pnpm bench -- --sizes=1m               # one size
//   pnpm bench -- --backends=wasm          # one backend
//   pnpm bench -- --profile                # also the slowest kernels of one training step (tf.profile)
//   pnpm bench -- --threads=2              # wasm with 2 XNNPACK threads
//   pnpm bench -- --json=figures.json      # also the figures by size and backend, as JSON
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Datum } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import {
  type BackendChoice,
  describeBackend,
  diagnoseBackends,
  initBackend,
  renderChat,
  shutdownBackend,
  TfjsPolicy,
  Tokenizer,
} from '../src/index';

interface Size {
  name: string;
  dModel: number;
  nLayers: number;
  nHeads: number;
  trainBatch: number;
  trainSteps: number;
  noCacheTokens: number;
}

const VOCAB = 512;
const CONTEXT = 256;
const GENERATION_BATCH = 32;
const SIZES: Size[] = [
  { name: '1m', dModel: 128, nLayers: 4, nHeads: 4, trainBatch: 8, trainSteps: 5, noCacheTokens: 4 },
  { name: '5m', dModel: 256, nLayers: 6, nHeads: 8, trainBatch: 8, trainSteps: 3, noCacheTokens: 2 },
];

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, '').split('=');
    return [key!, value ?? 'true'] as const;
  }),
);
const wasmThreads = Number(args.get('threads') ?? 1);
const wanted = (args.get('sizes') ?? SIZES.map((s) => s.name).join(',')).split(',');
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const python = join(repoRoot, 'tooling/bench/.venv/bin/python');
const torchScript = join(repoRoot, 'tooling/bench/torch_reference.py');

// A tokenizer with exactly VOCAB ids: special tokens, bytes, then merges of a synthetic corpus.
function benchTokenizer(): Tokenizer {
  const words = Array.from({ length: 400 }, (_, i) => `w${(i * 7919).toString(36)}`);
  const corpus = Array.from({ length: 200 }, (_, i) => words.slice(i % 300, (i % 300) + 60).join(' '));
  return Tokenizer.train(corpus, { vocabSize: VOCAB });
}

const randomIds = (count: number, seed: number) => {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return 11 + (state % (VOCAB - 11));
  });
};

async function timeAsync(run: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await run();
  return (performance.now() - start) / 1000;
}

interface TorchResult {
  tokens_per_s: number;
  tokens_per_cpu_s: number;
  threads: number;
}

function torchReference(size: Size, threads: number): TorchResult | string {
  if (!existsSync(python)) {
    return `no PyTorch venv: python3 -m venv tooling/bench/.venv && tooling/bench/.venv/bin/pip install torch numpy`;
  }
  const run = spawnSync(
    python,
    [
      torchScript,
      `--vocab=${VOCAB}`,
      `--d-model=${size.dModel}`,
      `--layers=${size.nLayers}`,
      `--heads=${size.nHeads}`,
      `--context=${CONTEXT}`,
      `--batch=${size.trainBatch}`,
      `--steps=${size.trainSteps}`,
      '--warmup=1',
      `--threads=${threads}`,
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) return `PyTorch reference failed: ${run.stderr.trim().split('\n').at(-1)}`;
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

interface Figures {
  threads: number;
  trainTokens: number;
  trainCpuTokens: number;
  decodeRate: number;
  choiceRate: number;
}

async function benchSize(size: Size, tokenizer: Tokenizer, backend: BackendChoice): Promise<Figures> {
  const policy = await TfjsPolicy.create({
    tokenizer,
    backend,
    wasmThreads,
    model: { dModel: size.dModel, nLayers: size.nLayers, nHeads: size.nHeads, contextLength: CONTEXT + 1 },
  });
  console.log(
    `\n## ${size.name} on ${describeBackend(policy.backend).split(';')[0]}: d=${size.dModel} layers=${size.nLayers} heads=${size.nHeads}, ${policy.parameterCount().toLocaleString()} parameters, vocab ${VOCAB}`,
  );

  // Training: trainBatch sequences of CONTEXT predictions each.
  const datums: Datum[] = Array.from({ length: size.trainBatch }, (_, b) => {
    const tokenIds = randomIds(CONTEXT + 1, b + 1);
    return { tokenIds, weights: tokenIds.map((_, i) => (i === 0 ? 0 : 1 / (CONTEXT * size.trainBatch))) };
  });
  const trainStep = async () => {
    await policy.forwardBackward(datums, 'cross_entropy');
    await policy.optimStep({ learningRate: 1e-3, beta2: 0.95, weightDecay: 0.01, gradClipNorm: 1 });
  };
  await trainStep();
  const cpuStart = process.cpuUsage();
  const trainSeconds =
    (await timeAsync(async () => {
      for (let i = 0; i < size.trainSteps; i++) await trainStep();
    })) / size.trainSteps;
  const cpu = process.cpuUsage(cpuStart);
  const trainCpuSeconds = (cpu.user + cpu.system) / 1e6 / size.trainSteps;
  const trainTokens = (size.trainBatch * CONTEXT) / trainSeconds;
  const trainCpuTokens = (size.trainBatch * CONTEXT) / trainCpuSeconds;
  console.log(
    `training   ${size.trainBatch}x${CONTEXT} tokens/step: ${(trainSeconds * 1000).toFixed(0)} ms/step wall, ${(trainCpuSeconds * 1000).toFixed(0)} ms/step CPU; ` +
      `${trainTokens.toFixed(0)} tokens/s, ${trainCpuTokens.toFixed(0)} tokens per CPU-second`,
  );

  if (args.has('profile')) {
    const profile = await tf.profile(trainStep);
    const byKernel = new Map<string, { ms: number; calls: number }>();
    for (const kernel of profile.kernels) {
      if (kernel.name.endsWith('__op')) continue;
      const entry = byKernel.get(kernel.name) ?? { ms: 0, calls: 0 };
      entry.ms += Number(kernel.kernelTimeMs);
      entry.calls += 1;
      byKernel.set(kernel.name, entry);
    }
    const total = [...byKernel.values()].reduce((s, e) => s + e.ms, 0);
    console.log(`profile of one training step: kernel time ${total.toFixed(0)} ms`);
    for (const [name, { ms, calls }] of [...byKernel].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) {
      console.log(
        `  ${name.padEnd(20)} ${ms.toFixed(1).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${calls} calls`,
      );
    }
    const byShape = new Map<string, { ms: number; calls: number }>();
    for (const kernel of profile.kernels) {
      if (kernel.name !== 'BatchMatMul' && kernel.name !== '_FusedMatMul') continue;
      const key = `${kernel.name} ${kernel.inputShapes.map((s) => `[${s}]`).join('x')}`;
      const entry = byShape.get(key) ?? { ms: 0, calls: 0 };
      entry.ms += Number(kernel.kernelTimeMs);
      entry.calls += 1;
      byShape.set(key, entry);
    }
    console.log('matmuls by shape:');
    for (const [key, { ms, calls }] of [...byShape].sort((a, b) => b[1].ms - a[1].ms).slice(0, 10)) {
      console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${calls} calls  ${key}`);
    }
  }

  // Generation at batch 32 near a full context: cache (prefill once, then one token per step)
  // versus recomputing the whole context for every token.
  const cachedTokens = 32;
  const promptFor = (extra: number) =>
    Array.from({ length: GENERATION_BATCH }, (_, b) => randomIds(CONTEXT - extra, 100 + b));
  const settings = { temperature: 0, topP: 1, stop: [] };
  const generate = (extra: number, maxTokens: number, useCache: boolean) => {
    const start = performance.now();
    const out = policy.generateFromIds(promptFor(extra), { ...settings, maxTokens }, { useCache });
    return {
      seconds: (performance.now() - start) / 1000,
      tokens: out.reduce((n, r) => n + r.tokenIds.length, 0),
    };
  };
  // Prefill plus one token, then prefill plus cachedTokens: the difference is pure decoding. The
  // first call at these shapes also allocates and warms kernels, so it runs once untimed.
  generate(cachedTokens, 1, true);
  const prefill = generate(cachedTokens, 1, true);
  const cached = generate(cachedTokens, cachedTokens, true);
  const decodeRate = (cached.tokens - prefill.tokens) / (cached.seconds - prefill.seconds);
  const cachedRate = cached.tokens / cached.seconds;
  const full = generate(size.noCacheTokens, size.noCacheTokens, false);
  const fullRate = full.tokens / full.seconds;
  console.log(
    `generation batch ${GENERATION_BATCH}, context ~${CONTEXT}, greedy:\n` +
      `  KV cache   decode ${decodeRate.toFixed(0)} tokens/s; with the ${GENERATION_BATCH}x${CONTEXT - cachedTokens} prefill (${prefill.seconds.toFixed(1)} s) ${cachedRate.toFixed(0)} tokens/s for ${cachedTokens} tokens per sequence\n` +
      `  recompute  ${fullRate.toFixed(1)} tokens/s (every token re-runs the ${CONTEXT}-token context)\n` +
      `  KV cache / recompute: ${(decodeRate / fullRate).toFixed(0)}x decoding, ${(cachedRate / fullRate).toFixed(1)}x including the prefill`,
  );

  // Constrained decoding as an agent uses it: 64 requests of mixed prompt lengths, each choosing
  // among 5-16 commands. Packed scoring (one sequence per request, shared prefixes once, batches
  // of similar packed length) against scoring every prompt + command as its own sequence.
  const text = (ids: number[]) => tokenizer.decode(ids);
  const commands = Array.from({ length: 40 }, (_, i) => text(randomIds(2 + (i % 4), 500 + i)));
  const choiceRequests = Array.from({ length: 64 }, (_, r) => {
    const messages = [{ role: 'user' as const, content: text(randomIds(20 + ((r * 37) % 60), 300 + r)) }];
    return {
      messages,
      prompt: renderChat(tokenizer, messages),
      choices: commands.slice(r % 16, (r % 16) + 5 + ((r * 7) % 12)),
    };
  });
  const packedSeconds = await timeAsync(async () => {
    await policy.generate(
      choiceRequests.map(({ messages, choices }) => ({ messages, choices, temperature: 1, seed: 1 })),
    );
  });
  const separateSeconds = await timeAsync(async () => {
    const sequences = choiceRequests.flatMap((r) =>
      r.choices.map((choice) => {
        const tokenIds = [...r.prompt, ...policy.encode(choice)];
        return { tokenIds, weights: tokenIds.map(() => 0) };
      }),
    );
    for (let i = 0; i < sequences.length; i += GENERATION_BATCH) {
      await policy.forward(sequences.slice(i, i + GENERATION_BATCH));
    }
  });
  const commandCount = choiceRequests.reduce((n, r) => n + r.choices.length, 0);
  console.log(
    `constrained choice, ${choiceRequests.length} requests, ${commandCount} commands: packed ${(choiceRequests.length / packedSeconds).toFixed(1)} requests/s, ` +
      `one sequence per command ${(choiceRequests.length / separateSeconds).toFixed(1)} requests/s; packed / separate = ${(separateSeconds / packedSeconds).toFixed(1)}x`,
  );
  policy.dispose();
  return {
    threads: policy.backend.threads,
    trainTokens,
    trainCpuTokens,
    decodeRate,
    choiceRate: choiceRequests.length / packedSeconds,
  };
}

/** PyTorch at each thread count, keyed by the threads it reports. */
function benchTorch(size: Size, threadCounts: readonly number[]): Map<number, TorchResult> | undefined {
  const results = new Map<number, TorchResult>();
  for (const threads of threadCounts) {
    const result = torchReference(size, threads);
    if (typeof result === 'string') {
      console.log(`PyTorch: ${result}`);
      return undefined;
    }
    results.set(result.threads, result);
    console.log(
      `\n## ${size.name} in PyTorch, ${result.threads} thread${result.threads === 1 ? '' : 's'}: ${result.tokens_per_s.toFixed(0)} tokens/s, ${result.tokens_per_cpu_s.toFixed(0)} per CPU-second`,
    );
  }
  return results;
}

const doctor = await diagnoseBackends();
const available = doctor.backends.filter((b) => b.loads && b.choice !== 'cpu').map((b) => b.choice);
const backends = args.has('backends') ? (args.get('backends')!.split(',') as BackendChoice[]) : available;
console.log(`# @pilotrl/policy-tfjs speed on ${backends.join(', ')}`);
for (const b of doctor.backends.filter((b) => !b.loads)) console.log(`(${b.choice} skipped: ${b.detail})`);
const wasm = await initBackend({ backend: 'wasm', wasmThreads });
console.log(`(wasm overrides: ${wasm.overrides.join(', ') || 'none'})`);

const tokenizer = benchTokenizer();
const ratios: string[] = [];
const bySize: Record<string, Partial<Record<BackendChoice, Figures>>> = {};
for (const size of SIZES.filter((s) => wanted.includes(s.name))) {
  const figures = new Map<BackendChoice, Figures>();
  for (const backend of backends) figures.set(backend, await benchSize(size, tokenizer, backend));
  bySize[size.name] = Object.fromEntries(figures);
  // Per CPU-second against PyTorch on the same number of threads, and on one thread (PyTorch's
  // most CPU-efficient setting); wall-clock against PyTorch on the same number of threads.
  const threadCounts = [...new Set([1, ...[...figures.values()].map((f) => f.threads)])];
  const torch = benchTorch(size, threadCounts);
  for (const [backend, f] of figures) {
    const same = torch?.get(f.threads);
    const single = torch?.get(1);
    const vsTorch =
      same && single
        ? `per CPU-second ${(f.trainCpuTokens / same.tokens_per_cpu_s).toFixed(2)}x PyTorch on ${f.threads} thread${f.threads === 1 ? '' : 's'}` +
          (f.threads === 1
            ? ''
            : ` (${(f.trainCpuTokens / single.tokens_per_cpu_s).toFixed(2)}x PyTorch on 1 thread)`) +
          `; wall ${(f.trainTokens / same.tokens_per_s).toFixed(2)}x PyTorch on ${f.threads} thread${f.threads === 1 ? '' : 's'}`
        : 'no PyTorch reference';
    ratios.push(`${size.name}  ${`${backend}, ${f.threads} thr`.padEnd(18)} training ${vsTorch}`);
  }
  const native = figures.get('tensorflow') ?? figures.get('tensorflow-gpu');
  const onWasm = figures.get('wasm');
  if (native && onWasm) {
    ratios.push(
      `${size.name}  ${'native / wasm'.padEnd(18)} training ${(native.trainTokens / onWasm.trainTokens).toFixed(2)}x wall, ` +
        `${(native.trainCpuTokens / onWasm.trainCpuTokens).toFixed(2)}x per CPU-second; ` +
        `decode ${(native.decodeRate / onWasm.decodeRate).toFixed(2)}x; constrained choice ${(native.choiceRate / onWasm.choiceRate).toFixed(2)}x`,
    );
  }
}
console.log(`\n## Ratios\n${ratios.join('\n')}`);
if (args.has('json')) writeFileSync(args.get('json')!, `${JSON.stringify({ sizes: bySize }, null, 2)}\n`);
shutdownBackend();
