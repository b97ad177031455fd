// The curriculum's own work, measured: rollout decisions per CPU-second on ALFWorld (choice actions
// with a free-text plan at turn 0, plans in plan steps, plans revised every turn), expert-iteration
// SFT tokens per CPU-second and ALFWorld resets and steps per second, at quick's model size and at
// one 4x wider. Everything runs through the product: the app's config, agent and policy builders,
// the rollout of @pilotrl/agent, TfjsPolicy (random-init weights, fixed seeds) and sftStep.
//
// Next to each policy row: the same model passes in PyTorch (the token batches this run fed the
// model are recorded and replayed by tooling/bench/torch_replay.py on a copy of the same weights),
// and the matmul FLOPs of the work against this machine's float32 matmul rate, measured in the run.
// A decision is one command played in the env; plan-step choices are work done for decisions.
// `--profile` prints where a decision's CPU time goes, from timers wrapped around the real calls
// (the env's reset and step, its state view and plan steps, the tokenizer, the policy, the model).
//
//   pnpm bench                               # from apps/pilotrl: both sizes, all rows, the PyTorch peer
//   node --conditions=@pilotrl/source --import tsx bench/loop.ts --profile      # where a decision's time goes
//   ... --sizes=quick --modes=steps --episodes=32 --turns=25 --sft-steps=5 --torch-threads=2 --no-torch
//   ... --compare-prefix-cache   # each rollout row also run, right after, by the policy with its default prefix cache (64 MiB)
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVectorEnv, rollout } from '@pilotrl/agent';
import type { EpisodeViewFactory, GenerateRequest, PlanStepVocabulary, TextEnv } from '@pilotrl/core';
import { sftStep } from '@pilotrl/optim';
import { sftDatum, type TfjsPolicy, type Tokenizer } from '@pilotrl/policy-tfjs';
import * as tf from '@tensorflow/tfjs-core';
import { type CurriculumConfigInput, envCurricula, parseConfig } from '../src/config/curriculum-config';
import { presets } from '../src/config/presets';
import { createTfjsPolicy, tfjsOptionsOf, trainTokenizer } from '../src/policies/tfjs-backend';
import { envOptionsFor, envProviderFor, runEnvOf, runEnvsFor } from '../src/run/run-envs';
import {
  agentOptionsFor,
  createAgent,
  demonstrationsFor,
  demonstrationTexts,
  trainTasks,
} from '../src/run/run-setup';

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, '').split('=');
    return [key!, value ?? 'true'] as const;
  }),
);
const PROFILE = args.has('profile');
const EPISODES = Number(args.get('episodes') ?? 16);
const TURNS = Number(args.get('turns') ?? 12);
const SFT_STEPS = Number(args.get('sft-steps') ?? 3);
// PyTorch on one thread by default: its most CPU-efficient setting, and the one whose CPU time a
// busy machine does not inflate with threads spinning while they wait for each other.
const TORCH_THREADS = Number(args.get('torch-threads') ?? 1);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const python = join(repoRoot, 'tooling/bench/.venv/bin/python');
const torchScript = join(repoRoot, 'tooling/bench/torch_replay.py');
const withTorch = !args.has('no-torch');
const COMPARE_PREFIX_CACHE = args.has('compare-prefix-cache');

const quick = presets.quick!;
/** Model sizes: quick's policy, and the same with a 4x wider residual stream. */
const SIZES = {
  quick: { ...quick.policy },
  wide: { ...quick.policy, dModel: 4 * (quick.policy as { dModel: number }).dModel },
} as const;
/** The agents measured: quick's with a free-text plan at turn 0, quick's own, and quick's revising every turn. */
const MODES = {
  'free-plan': { plan: 'free-text', planRevision: 'never' },
  steps: { plan: 'steps', planRevision: 'never' },
  'every-turn': { plan: 'steps', planRevision: 'every-turn' },
} as const;
type SizeName = keyof typeof SIZES;
type ModeName = keyof typeof MODES;
const sizes = (args.get('sizes') ?? Object.keys(SIZES).join(',')).split(',') as SizeName[];
const modes = (args.get('modes') ?? Object.keys(MODES).join(',')).split(',') as ModeName[];
for (const [flag, names, known] of [
  ['sizes', sizes, SIZES],
  ['modes', modes, MODES],
] as const) {
  const unknown = names.find((name) => !(name in known));
  if (unknown !== undefined) {
    throw new Error(`--${flag}: no "${unknown}" here; use ${Object.keys(known).join(', ')}`);
  }
}

/** quick with `policy` and `agent` changed; one GRPO stage, which accepts free-text plans too (evaluation ignores stages). */
function configOf(size: SizeName, mode: ModeName) {
  const input: CurriculumConfigInput = {
    ...quick,
    env: { id: 'alfworld', maxSteps: TURNS },
    policy: SIZES[size],
    agent: { ...quick.agent, ...MODES[mode] },
    stages: [
      {
        kind: 'joint',
        iterations: 1,
        tasksPerIteration: 8,
        groupSize: 2,
        learningRate: 1e-3,
        rewards: { outcome: 1 },
      },
    ],
  };
  const config = parseConfig(input, `loop bench ${size}/${mode}`);
  return { config, env: envCurricula(config)[0]!.config };
}

// ---- CPU time, by section -------------------------------------------------------------------

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * Exclusive CPU and wall time per label of wrapped calls: a call's own time, less the time of the
 * wrapped calls made inside it. For a call that returns a promise, its synchronous part is timed:
 * the env's, the tokenizer's and the tfjs policy's work all happen there.
 */
class Sections {
  readonly totals = new Map<string, { cpu: number; wall: number; calls: number }>();
  private readonly stack: { cpu: number; wall: number; childCpu: number; childWall: number }[] = [];

  /** Runs `run`, its time counted under `label`, and counted as one call unless `call` is false. */
  time<R>(label: string, run: () => R, call = true): R {
    const frame = { cpu: cpuNow(), wall: performance.now(), childCpu: 0, childWall: 0 };
    this.stack.push(frame);
    try {
      return run();
    } finally {
      this.stack.pop();
      const cpu = cpuNow() - frame.cpu;
      const wall = (performance.now() - frame.wall) / 1000;
      const entry = this.totals.get(label) ?? { cpu: 0, wall: 0, calls: 0 };
      entry.cpu += cpu - frame.childCpu;
      entry.wall += wall - frame.childWall;
      if (call) entry.calls += 1;
      this.totals.set(label, entry);
      const parent = this.stack.at(-1);
      if (parent) {
        parent.childCpu += cpu;
        parent.childWall += wall;
      }
    }
  }

  /** Replaces `target[key]` (a method) with one timed under `label`. */
  wrap<T extends object>(target: T, key: keyof T & string, label: string): void {
    const original = (target[key] as (...a: unknown[]) => unknown).bind(target);
    (target as Record<string, unknown>)[key] = (...a: unknown[]) => this.time(label, () => original(...a));
  }

  cpu(label: string): number {
    return this.totals.get(label)?.cpu ?? 0;
  }

  reset(): void {
    this.totals.clear();
  }
}

// ---- what the model was fed ----------------------------------------------------------------

/** The model as the bench sees it: TfjsPolicy's `model` is its TransformerModel at run time. */
interface Net {
  config: {
    dModel: number;
    nLayers: number;
    nHeads: number;
    vocabSize: number;
    contextLength: number;
    mlpRatio: number;
  };
  weights: ReadonlyMap<string, tf.Variable>;
  run(
    ids: tf.Tensor2D,
    positions: tf.Tensor2D,
    bias: tf.Tensor | null,
    past?: { k: tf.Tensor4D }[],
    keep?: boolean,
  ): { hidden: tf.Tensor2D };
  logits(hidden: tf.Tensor2D): tf.Tensor2D;
}

type PassKind = 'choice' | 'prompt' | 'decode' | 'train';
interface Pass {
  kind: PassKind;
  batch: number;
  time: number;
  past: number;
  /** Rows whose logits were computed after this pass. */
  rows: number;
  /** Whether the pass had an explicit attention bias (else causal). */
  bias: boolean;
  ids: Int32Array;
  positions: Int32Array;
  /** SFT step this pass belongs to. */
  step?: number;
  /** Stored for the first pass of each kind without a cache: the bias and the tfjs hidden states, to check PyTorch's against. */
  check?: { bias: Float32Array | null; hidden: Float32Array };
}

/** Matmul FLOPs of one forward pass (multiply-adds x 2): projections, attention, MLP, logits. */
function passFlops(net: Net, pass: Pass): number {
  const { dModel: d, nLayers, mlpRatio, vocabSize } = net.config;
  const tokens = pass.batch * pass.time;
  const perLayer =
    2 * tokens * (3 * d * d + d * d + 2 * mlpRatio * d * d) + 4 * tokens * (pass.past + pass.time) * d;
  return nLayers * perLayer + 2 * pass.rows * d * vocabSize;
}

/**
 * Wraps the policy's model: times every pass (`model` section), records its token batch, and tags
 * it with the kind of work the policy is doing (`kindNow`). Recording costs are timed apart.
 */
function recordPasses(policy: TfjsPolicy, sections: Sections) {
  const net = policy.model as unknown as Net;
  const passes: Pass[] = [];
  const checked = new Set<PassKind>();
  const state = { kind: 'prompt' as PassKind, step: 0, recordCpu: 0 };
  /** Forgets what was recorded, before a timed run. */
  const reset = () => {
    passes.length = 0;
    checked.clear();
    state.recordCpu = 0;
  };
  const run = net.run.bind(net);
  const logits = net.logits.bind(net);
  net.run = (ids, positions, bias, past, keep) => {
    const out = sections.time('model', () => run(ids, positions, bias, past, keep));
    sections.time('recording', () => record(ids, positions, bias, past, out.hidden));
    return out;
  };
  const record = (
    ids: tf.Tensor2D,
    positions: tf.Tensor2D,
    bias: tf.Tensor | null,
    past: { k: tf.Tensor4D }[] | undefined,
    hidden: tf.Tensor2D,
  ) => {
    const start = cpuNow();
    const pastLength = past?.[0]?.k.shape[2] ?? 0;
    const kind: PassKind = state.kind === 'prompt' && pastLength > 0 ? 'decode' : state.kind;
    const pass: Pass = {
      kind,
      batch: ids.shape[0],
      time: ids.shape[1],
      past: pastLength,
      rows: 0,
      bias: bias !== null,
      ids: ids.dataSync() as Int32Array,
      positions: positions.dataSync() as Int32Array,
      ...(kind === 'train' ? { step: state.step } : {}),
    };
    // Training passes change the weights, so only sampling passes are checked against PyTorch.
    if (!checked.has(kind) && pastLength === 0 && kind !== 'train') {
      checked.add(kind);
      pass.check = {
        bias: bias === null ? null : Float32Array.from(bias.dataSync()),
        hidden: Float32Array.from(hidden.dataSync()),
      };
    }
    passes.push(pass);
    state.recordCpu += cpuNow() - start;
  };
  net.logits = (hidden) => {
    const last = passes.at(-1);
    if (last) last.rows += hidden.shape[0];
    // The logits are part of the pass just counted.
    return sections.time('model', () => logits(hidden), false);
  };
  const generate = policy.generate.bind(policy);
  policy.generate = (requests: readonly GenerateRequest[], options) => {
    state.kind = requests.every((r) => r.choices !== undefined) ? 'choice' : 'prompt';
    return sections.time('policy', () => generate(requests, options));
  };
  // The weights before any training: sampling passes ran on these.
  const initialWeights = policy.readWeights();
  return { net, passes, state, reset, initialWeights };
}

// ---- the measured runs ---------------------------------------------------------------------

interface Row {
  size: SizeName;
  parameters: number;
  work: string;
  unit: string;
  count: number;
  cpu: number;
  wall: number;
  modelCpu: number;
  flops: number;
  group?: string;
  passes: Pass[];
}

/** The float32 matmul rate of this machine's tfjs backend: 512x512 by 512x512, per CPU-second and per second. */
function matmulRate() {
  const a = tf.randomNormal([512, 512]);
  const b = tf.randomNormal([512, 512]);
  // Not in tf.tidy, which would walk the returned array element by element.
  const once = () => {
    const product = tf.matMul(a, b);
    product.dataSync();
    product.dispose();
  };
  for (let i = 0; i < 5; i++) once();
  const reps = 100;
  const cpu = cpuNow();
  const wall = performance.now();
  for (let i = 0; i < reps; i++) once();
  const flops = reps * 2 * 512 ** 3;
  const result = { perCpu: flops / (cpuNow() - cpu), perWall: flops / ((performance.now() - wall) / 1000) };
  tf.dispose([a, b]);
  return result;
}

/** Wraps an env's reset and step (`env` section) and, with --profile, its view and plan steps. */
function timedProvider(provider: ReturnType<typeof envProviderFor>, sections: Sections) {
  const createEnv = (options: Record<string, unknown>): TextEnv => {
    const env = provider.createEnv(options);
    sections.wrap(env, 'reset', 'env reset');
    sections.wrap(env, 'step', 'env step');
    return env;
  };
  if (!PROFILE) return { ...provider, createEnv };
  const view: EpisodeViewFactory | undefined =
    provider.view &&
    ((start) => {
      const episodeView = sections.time('prompt building', () => provider.view!(start));
      sections.wrap(episodeView, 'prompt', 'prompt building');
      sections.wrap(episodeView, 'observe', 'prompt building');
      return episodeView;
    });
  let planSteps: PlanStepVocabulary | undefined;
  if (provider.planSteps) {
    const vocabulary = provider.planSteps;
    planSteps = Object.create(vocabulary) as PlanStepVocabulary;
    for (const key of ['steps', 'executes'] as const) {
      const original = vocabulary[key] as (...a: unknown[]) => unknown;
      (planSteps as unknown as Record<string, unknown>)[key] = (...a: unknown[]) =>
        sections.time('plan steps', () => original.apply(vocabulary, a));
    }
  }
  return { ...provider, createEnv, ...(view ? { view } : {}), ...(planSteps ? { planSteps } : {}) };
}

async function rolloutRow(
  size: SizeName,
  mode: ModeName,
  policy: TfjsPolicy,
  profile = PROFILE,
  variant = '',
): Promise<Row> {
  const { env: config } = configOf(size, mode);
  const provider = timedProvider(envProviderFor(config), sections);
  const agent = createAgent(config, policy.sampler(), agentOptionsFor(config, { provider, temperature: 0 }));
  const tasks = await trainTasks(config, provider, EPISODES);
  const vectorEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), { size: EPISODES });
  const recorder = recorders.get(policy)!;
  recorder.reset();
  sections.reset();
  const cpu = cpuNow();
  const wall = performance.now();
  const episodes = await rollout(agent, vectorEnv, { envId: provider.envId, tasks, seed: 1 });
  const loopCpu = cpuNow() - cpu - recorder.state.recordCpu;
  const loopWall = (performance.now() - wall) / 1000 - recorder.state.recordCpu;
  await vectorEnv.close();
  const decisions = episodes.reduce((n, e) => n + e.turns.length, 0);
  if (profile) printProfile(`${size} ${mode}${variant}`, sections, loopCpu, decisions);
  return {
    size,
    parameters: policy.parameterCount(),
    work: `rollout, ${MODES[mode].plan === 'free-text' ? 'choice + free-text plan at turn 0' : MODES[mode].planRevision === 'never' ? 'choice + plan steps (quick)' : 'choice + plan steps revised every turn'}${variant}`,
    unit: 'decisions',
    count: decisions,
    cpu: loopCpu,
    wall: loopWall,
    modelCpu: sections.cpu('model'),
    flops: recorder.passes.reduce((n, p) => n + passFlops(recorder.net, p), 0),
    group: `${size}-${mode}${variant === '' ? '' : '-prefix-cache'}`,
    passes: [...recorder.passes],
  };
}

async function sftRow(
  size: SizeName,
  policy: TfjsPolicy,
  datums: ReturnType<typeof sftDatum>[],
): Promise<Row> {
  const batchSize = 32;
  const recorder = recorders.get(policy)!;
  const batchAt = (step: number) =>
    Array.from({ length: batchSize }, (_, i) => datums[(step * batchSize + i) % datums.length]!);
  recorder.state.kind = 'train';
  await sftStep(policy, batchAt(SFT_STEPS), { learningRate: 1e-3 });
  recorder.reset();
  sections.reset();
  let tokens = 0;
  const cpu = cpuNow();
  const wall = performance.now();
  for (let step = 0; step < SFT_STEPS; step++) {
    recorder.state.step = step;
    tokens += (await sftStep(policy, batchAt(step), { learningRate: 1e-3 })).tokens;
  }
  const stepCpu = cpuNow() - cpu - recorder.state.recordCpu;
  return {
    size,
    parameters: policy.parameterCount(),
    work: `expert-iteration SFT, batch ${batchSize}`,
    unit: 'tokens',
    count: tokens,
    cpu: stepCpu,
    wall: (performance.now() - wall) / 1000 - recorder.state.recordCpu,
    modelCpu: stepCpu,
    // forward + backward: about three forward passes' matmuls
    flops: 3 * recorder.passes.reduce((n, p) => n + passFlops(recorder.net, p), 0),
    group: `${size}-sft`,
    passes: [...recorder.passes],
  };
}

function printProfile(title: string, sections: Sections, loopCpu: number, decisions: number) {
  const labels: [string, string][] = [
    ['prompt building', 'prompt building (state view)'],
    ['tokenizing', 'tokenizing (chat render, token counts, choices)'],
    ['model', 'forward passes (prompts, decoding, choice scoring)'],
    ['policy', 'choice scoring and sampling outside the model (packing, trie, bias, logprobs)'],
    ['env step', 'env step'],
    ['env reset', 'env reset'],
    ['plan steps', 'plan-step vocabulary (steps, executes)'],
  ];
  const named = labels.reduce((n, [label]) => n + sections.cpu(label), 0);
  console.log(
    `\n### profile: ${title}, ${decisions} decisions, ${loopCpu.toFixed(2)} CPU-s (${((1000 * loopCpu) / decisions).toFixed(1)} CPU-ms a decision)`,
  );
  console.log('| section | CPU-ms a decision | share | calls |\n|---|---|---|---|');
  for (const [label, text] of labels) {
    const entry = sections.totals.get(label);
    if (!entry) continue;
    console.log(
      `| ${text} | ${((1000 * entry.cpu) / decisions).toFixed(2)} | ${((100 * entry.cpu) / loopCpu).toFixed(1)}% | ${entry.calls} |`,
    );
  }
  const rest = loopCpu - named;
  console.log(
    `| rollout scheduler and agent (plan trie, parsing, episode state; the rest) | ${((1000 * rest) / decisions).toFixed(2)} | ${((100 * rest) / loopCpu).toFixed(1)}% | |`,
  );
}

/**
 * ALFWorld resets and steps with admissible commands, per CPU-second: resets to tasks no env of the
 * process has loaded (the game is compiled), then a second env's resets to the same tasks (the
 * compiled game comes from the env's shared cache).
 */
async function envRows(): Promise<string[]> {
  const { env: config } = configOf('quick', 'steps');
  const provider = envProviderFor(config);
  // Past the tasks the rollouts and the SFT data play, so that the first resets compile.
  const tasks = await provider.tasks.tasks(config.env.trainSplit, { offset: 10_000, limit: 40 });
  const figures = {
    reset: { cpu: 0, wall: 0, n: 0 },
    cached: { cpu: 0, wall: 0, n: 0 },
    step: { cpu: 0, wall: 0, n: 0 },
  };
  const timed = async <T>(what: keyof typeof figures, run: () => Promise<T>) => {
    const cpu = cpuNow();
    const wall = performance.now();
    const out = await run();
    figures[what].cpu += cpuNow() - cpu;
    figures[what].wall += (performance.now() - wall) / 1000;
    figures[what].n += 1;
    return out;
  };
  const env = provider.createEnv(envOptionsFor(config));
  for (const [i, task] of tasks.entries()) {
    let result = await timed('reset', () => env.reset({ seed: i, taskId: task.taskId }));
    for (let t = 0; t < 50 && !result.terminated && !result.truncated; t++) {
      const actions = result.admissibleActions ?? [];
      const action = actions[(t * 7 + i) % Math.max(1, actions.length)] ?? 'look';
      result = await timed('step', () => env.step(action));
    }
  }
  await env.close?.();
  const second = provider.createEnv(envOptionsFor(config));
  for (const [i, task] of tasks.entries())
    await timed('cached', () => second.reset({ seed: i, taskId: task.taskId }));
  await second.close?.();
  const work = {
    reset: 'reset to a task not loaded before',
    cached: 'reset to a task another env loaded',
    step: 'step (admissible command)',
  };
  const unit = { reset: 'resets', cached: 'resets', step: 'steps' };
  return (['reset', 'cached', 'step'] as const).map(
    (what) =>
      `| ALFWorld env | ${work[what]} | ${(figures[what].n / figures[what].cpu).toFixed(0)} ${unit[what]} per CPU-s (${((1000 * figures[what].cpu) / figures[what].n).toFixed(2)} CPU-ms each, ${figures[what].n} timed) | | | | | |`,
  );
}

// ---- the PyTorch peer --------------------------------------------------------------------

interface TorchGroup {
  cpu: number;
  wall: number;
  maxHiddenDiff: number | null;
}

/** Writes the weights and every row's passes for torch_replay.py, runs it, and reads its timings by group. */
function torchReplay(
  policies: Map<SizeName, TfjsPolicy>,
  rows: Row[],
): { groups: Map<string, TorchGroup>; matmulPerCpu: number } | string {
  if (!existsSync(python)) {
    return 'no PyTorch venv: python3 -m venv tooling/bench/.venv && tooling/bench/.venv/bin/pip install torch numpy';
  }
  const dir = mkdtempSync(join(tmpdir(), 'pilotrl-loop-bench-'));
  try {
    const data = openSync(join(dir, 'data.bin'), 'w');
    let offset = 0;
    const put = (array: Int32Array | Float32Array) => {
      writeSync(data, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      const at = offset;
      offset += array.byteLength;
      return at;
    };
    const models: Record<string, unknown> = {};
    for (const [size, policy] of policies) {
      const net = recorders.get(policy)!.net;
      const weights = [...recorders.get(policy)!.initialWeights].map(([name, values]) => ({
        name,
        shape: net.weights.get(name)!.shape,
        offset: put(values),
      }));
      models[size] = { config: net.config, weights };
    }
    const groups = rows
      .filter((row) => row.group !== undefined)
      .map((row) => ({
        name: row.group,
        model: row.size,
        train: row.unit === 'tokens',
        passes: row.passes.map((p) => ({
          kind: p.kind,
          batch: p.batch,
          time: p.time,
          past: p.past,
          rows: p.rows,
          bias: p.bias,
          step: p.step ?? 0,
          ids: put(p.ids),
          positions: put(p.positions),
          ...(p.check
            ? {
                check: {
                  bias: p.check.bias === null ? null : put(p.check.bias),
                  hidden: put(p.check.hidden),
                },
              }
            : {}),
        })),
      }));
    closeSync(data);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ models, groups }));
    const run = spawnSync(python, [torchScript, `--dir=${dir}`, `--threads=${TORCH_THREADS}`], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    if (run.status !== 0)
      return `PyTorch replay failed: ${run.stderr.trim().split('\n').slice(-3).join(' / ')}`;
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      torch: string;
      threads: number;
      matmul_flops_per_cpu_s: number;
      groups: Record<string, TorchGroup>;
    };
    console.log(
      `(PyTorch ${result.torch}, ${result.threads} threads; its 512x512 matmul: ${(result.matmul_flops_per_cpu_s / 1e9).toFixed(1)} GFLOP per CPU-s)`,
    );
    return { groups: new Map(Object.entries(result.groups)), matmulPerCpu: result.matmul_flops_per_cpu_s };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- main ------------------------------------------------------------------------------

const recorders = new Map<TfjsPolicy, ReturnType<typeof recordPasses>>();
const started = { cpu: cpuNow(), wall: performance.now() };
const { config: baseConfig } = configOf('quick', 'steps');
const baseOptions = tfjsOptionsOf(baseConfig.policy);
const { tokenizer } = trainTokenizer(
  baseOptions,
  await demonstrationTexts(runEnvsFor(baseConfig), baseOptions.tokenizerCorpusTasks),
);
const sections = new Sections();
const policies = new Map<SizeName, TfjsPolicy>();
/**
 * The measured policies run without the prompt-prefix KV cache the app gives them by default; with
 * --compare-prefix-cache the same policies (same weights) with it. Each rollout starts it empty.
 */
const cachedPolicies = new Map<SizeName, TfjsPolicy>();
for (const size of sizes) {
  const { config } = configOf(size, 'steps');
  const options = tfjsOptionsOf(config.policy);
  const create = (prefixCacheBytes: number) =>
    createTfjsPolicy({ ...options, prefixCacheBytes }, tokenizer as Tokenizer, {
      name: config.name,
      samplingSeed: config.seed,
    });
  const policy = await create(0);
  recorders.set(policy, recordPasses(policy, sections));
  policies.set(size, policy);
  if (COMPARE_PREFIX_CACHE) {
    const cached = await create(options.prefixCacheBytes);
    recorders.set(cached, recordPasses(cached, sections));
    cachedPolicies.set(size, cached);
  }
}
if (PROFILE) sections.wrap(tokenizer, 'encode', 'tokenizing');
const backend = policies.values().next().value!.backend;
const rate = matmulRate();
console.log(
  `# loop speed: ALFWorld, ${EPISODES} episodes of at most ${TURNS} turns per rollout, evaluation settings (temperature 0), tfjs backend ${backend.choice}, ${cpus().length} cores\n` +
    `(512x512 float32 matmul on ${backend.choice}: ${(rate.perCpu / 1e9).toFixed(1)} GFLOP per CPU-s, ${(rate.perWall / 1e9).toFixed(1)} GFLOP/s)`,
);

// SFT data: the oracle's demonstrations as quick's agent renders them, as expert iteration trains them.
const { env: sftConfig } = configOf('quick', 'steps');
const { demonstrations } = await demonstrationsFor(runEnvOf(sftConfig), 24);
const datums = demonstrations.map((demo) =>
  sftDatum(tokenizer, { prompt: demo.messages, response: demo.reply }),
);

const rows: Row[] = [];
for (const [size, policy] of policies) {
  // The first rollout of a policy also warms tfjs up; it is not timed.
  await rolloutRow(size, 'steps', policy, false);
  const cached = cachedPolicies.get(size);
  if (cached !== undefined) await rolloutRow(size, 'steps', cached, false);
  for (const mode of modes) {
    rows.push(await rolloutRow(size, mode, policy));
    if (cached !== undefined) {
      rows.push(await rolloutRow(size, mode, cached, PROFILE, ' (prefix cache)'));
    }
  }
  rows.push(await sftRow(size, policy, datums));
}
const envTable = await envRows();
const torch = withTorch ? torchReplay(policies, rows) : 'skipped (--no-torch)';
// The machine's limit: the faster of the two 512x512 matmul rates measured in this run.
const limitRate = Math.max(rate.perCpu, typeof torch === 'string' ? 0 : torch.matmulPerCpu);
console.log(
  `(matmul limit: ${(limitRate / 1e9).toFixed(1)} GFLOP per CPU-s, ${limitRate === rate.perCpu ? `tfjs ${backend.choice}` : 'PyTorch'}'s rate)`,
);
if (typeof torch === 'string') console.log(`PyTorch peer: ${torch}`);

console.log(
  `\n| model | work | tfjs ${backend.choice} | model passes (mean batch x tokens) | tfjs model CPU-s | PyTorch CPU-s, same batches | tfjs ÷ PyTorch CPU-s | matmul limit reached (whole loop / model passes) |`,
);
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) {
  const peer = typeof torch === 'string' ? undefined : torch.groups.get(row.group!);
  const limit = row.flops / limitRate;
  const check =
    peer?.maxHiddenDiff === null || peer === undefined
      ? ''
      : `, hidden max diff ${peer.maxHiddenDiff.toExponential(0)}`;
  const mean = (of: (p: Pass) => number) => row.passes.reduce((n, p) => n + of(p), 0) / row.passes.length;
  const shape = `${row.passes.length} (${mean((p) => p.batch).toFixed(0)} x ${mean((p) => p.time).toFixed(0)})`;
  console.log(
    `| ${row.size} (${(row.parameters / 1e3).toFixed(0)}K) | ${row.work} | ${(row.count / row.cpu).toFixed(row.unit === 'tokens' ? 0 : 1)} ${row.unit} per CPU-s (${row.count} in ${row.cpu.toFixed(1)} CPU-s, ${row.wall.toFixed(1)} s) ` +
      `| ${shape} | ${row.modelCpu.toFixed(2)} | ${peer ? `${peer.cpu.toFixed(2)}${check}` : '-'} | ${peer ? `${(row.modelCpu / peer.cpu).toFixed(2)}x` : '-'} ` +
      `| ${((100 * limit) / row.cpu).toFixed(2)}% / ${((100 * limit) / row.modelCpu).toFixed(1)}% (${(row.flops / row.count / 1e6).toFixed(2)} MFLOP per ${row.unit === 'tokens' ? 'token' : 'decision'}) |`,
  );
}
for (const line of envTable) console.log(line);
console.log(
  `\n(bench total ${(cpuNow() - started.cpu).toFixed(0)} CPU-s, ${((performance.now() - started.wall) / 1000).toFixed(0)} s)`,
);
for (const policy of [...policies.values(), ...cachedPolicies.values()]) policy.dispose();
