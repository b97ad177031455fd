// RL against more SFT on generated ALFWorld tasks. A small tfjs policy is fine-tuned on
// demonstrations (the engine's oracle's, or a searching expert's with `--demonstrator=searching`)
// until a held-out probe reaches the 30-50% band; from that checkpoint, per seed,
// (a) RL (turn-level advantages, PPO clip-higher on the exact constrained-decoding logprobs) and
// (b) continued SFT each get the same budget of process CPU seconds, and both are evaluated
// on held-out valid_seen + valid_unseen tasks with Wilson 95% CIs: greedily (the goal's measure) and
// sampled at temperature 1 (the policy RL optimises). Every (arm, seed) runs
// in its own process, `--jobs` at a time; CPU-second budgets keep the arms' compute equal however
// the processes share the cores.
//
//   pnpm --filter @pilotrl/optim bench:rl-vs-sft [--quick] [--budget=<CPU s>] [--start=<dir>] [--jobs=<n>]
//     [--rl-tasks=fresh|demo] [--demonstrator=oracle|searching]
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { wilsonInterval } from '@pilotrl/agent';
import { createRng } from '@pilotrl/core';
import { TfjsPolicy } from '@pilotrl/policy-tfjs';
import { createUpdateStep } from '../src/index';
import { parseDemonstrator, play, taskSource } from './rl-vs-sft/alfworld-play';
import {
  type BenchData,
  benchModel,
  benchSft,
  cpuSeconds,
  type Evaluation,
  evalString,
  evaluate,
  loadData,
  log,
  pct,
  randomBatchSftStep,
  warmedUpRate,
  winRate,
} from './rl-vs-sft/harness';

const flag = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
const quick = process.argv.includes('--quick');
/** A start checkpoint written by an earlier run (its path is logged), to skip the first SFT. */
const startArg = flag('start');
/** RL's tasks: fresh generated train tasks (default), or the demonstrated ones (`demo`). */
const rlTasks = flag('rl-tasks') ?? 'fresh';
if (rlTasks !== 'fresh' && rlTasks !== 'demo') throw new Error('--rl-tasks must be fresh or demo');
const demonstrator = parseDemonstrator(flag('demonstrator') ?? 'oracle');
/** Set in the processes that run one arm of one seed. */
const jobArg = flag('job');

const config = {
  model: benchModel,
  vocabSize: 400,
  maxSteps: 25,
  demoTasks: quick ? 80 : 300,
  demonstrator,
  sft: {
    batchSize: benchSft.batchSize,
    learningRate: benchSft.learningRate,
    probeEvery: quick ? 40 : 150,
    maxSteps: quick ? 120 : 2400,
  },
  /** The start checkpoint is the first probe at or above the band's floor (else the best probe). */
  startBand: [0.3, 0.5] as const,
  /** Probe tasks per split (valid_seen and valid_unseen, offset 10000: disjoint from the evaluation). */
  probePerSplit: quick ? 10 : 50,
  evalPerSplit: quick ? 20 : 100,
  seeds: quick ? [0] : [0, 1, 2],
  /** CPU seconds of training per arm and seed (rollouts included for RL). */
  budget: Number(flag('budget') ?? (quick ? 30 : 600)),
  jobs: Number(flag('jobs') ?? availableParallelism()),
  rl: {
    /**
     * Where RL's tasks come from: `fresh` generated train tasks (from 100000, none of them
     * demonstrated), or the `demo` tasks of the SFT data.
     */
    tasks: rlTasks,
    tasksPerIteration: quick ? 4 : 8,
    groupSize: 8,
    temperature: 1,
    anchorDemos: 32,
    update: {
      estimator: 'turn-level',
      estimatorArgs: { stepWeight: 1, gamma: 0.95 },
      loss: 'ppo',
      lossArgs: { clipLow: 0.2, clipHigh: 0.28 },
      // One sequence (one command) is one choice: its summed constrained token logprobs are the
      // choice's logprob, so every command weighs the same whatever its length.
      aggregation: 'seq-mean-token-sum',
      oldLogprobs: 'sampler',
      epochs: 1,
      minibatches: 2,
      anchorCoef: 0.1,
      adam: { learningRate: 1e-3, gradClipNorm: 1 },
    },
  },
} as const;

interface ArmResult extends Evaluation {
  arm: 'rl' | 'sft';
  seed: number;
  cpu: number;
  /** RL updates or SFT steps. */
  work: number;
  /** Tokens through forward+backward (RL: its rollout generations; SFT: its batches). */
  tokens: number;
  /** RL only: success of each update's rollouts. */
  rolloutSuccess?: number[];
  /** The same tasks played at temperature 1. */
  sampled: Evaluation;
}

const dataOptions = {
  demoTasks: config.demoTasks,
  demonstrator: config.demonstrator,
  probePerSplit: config.probePerSplit,
  evalPerSplit: config.evalPerSplit,
  maxSteps: config.maxSteps,
  vocabSize: config.vocabSize,
  contextLength: config.model.contextLength,
};

/** RL from the start checkpoint for the budget; the policy is left trained. */
async function trainRl(policy: TfjsPolicy, seed: number, data: BenchData) {
  const update = createUpdateStep({ ...config.rl.update, seed });
  const rng = createRng(`rl-vs-sft/rl/${seed}`);
  const pool =
    config.rl.tasks === 'demo'
      ? data.trainTasks
      : await taskSource.tasks('train', { offset: 100_000, limit: 5_000 });
  const start = cpuSeconds();
  let iterations = 0;
  let tokens = 0;
  const rolloutSuccess: number[] = [];
  while (cpuSeconds() - start < config.budget) {
    const tasks = Array.from({ length: config.rl.tasksPerIteration }, () => rng.pick(pool));
    const episodes = await play(policy, tasks, {
      groupSize: config.rl.groupSize,
      temperature: config.rl.temperature,
      maxSteps: config.maxSteps,
      seed: seed * 100_000 + iterations,
    });
    const anchor = Array.from({ length: config.rl.anchorDemos }, () => rng.pick(data.datums));
    const { metrics } = await update(policy, episodes, { anchor });
    const success = winRate(episodes);
    rolloutSuccess.push(success);
    tokens += episodes.reduce(
      (n, e) => n + e.turns.reduce((m, t) => m + t.generations[0]!.tokenIds.length, 0),
      0,
    );
    iterations++;
    log(
      `seed ${seed} RL update ${iterations}: rollout success ${pct(success)}, zero-variance groups ${metrics['charts/zero_variance_groups']}/${metrics['charts/groups']}, approx_kl ${(metrics['losses/approx_kl'] ?? 0).toFixed(4)}, clipfrac ${(metrics['losses/clipfrac'] ?? 0).toFixed(3)} (${(cpuSeconds() - start).toFixed(0)} CPU s)`,
    );
  }
  return { cpu: cpuSeconds() - start, work: iterations, tokens, rolloutSuccess };
}

/** Continued SFT from the start checkpoint for the budget, at the SFT learning rate. */
async function trainSft(policy: TfjsPolicy, seed: number, data: BenchData) {
  const rng = createRng(`rl-vs-sft/sft/${seed}`);
  const start = cpuSeconds();
  let steps = 0;
  let tokens = 0;
  while (cpuSeconds() - start < config.budget) {
    tokens += await randomBatchSftStep(policy, data.datums, rng, config.sft);
    steps++;
  }
  return { cpu: cpuSeconds() - start, work: steps, tokens };
}

/** Child process: one arm of one seed from the start checkpoint; writes its result as JSON. */
async function runJob(spec: string, startDir: string, resultFile: string) {
  const [arm, seedText] = spec.split(':') as ['rl' | 'sft', string];
  const seed = Number(seedText);
  const policy = await TfjsPolicy.load(startDir);
  const data = await loadData(policy.tokenizer, dataOptions);
  const trained = arm === 'rl' ? await trainRl(policy, seed, data) : await trainSft(policy, seed, data);
  const evaluation = await evaluate(policy, data.evalTasks, config.maxSteps);
  const sampled = await evaluate(policy, data.evalTasks, config.maxSteps, 1);
  log(
    `seed ${seed} ${arm === 'rl' ? 'RL' : 'continued SFT'} after ${trained.work} ${arm === 'rl' ? 'updates' : 'steps'}: held-out ${evalString(evaluation)}, sampled ${evalString(sampled)}`,
  );
  const result: ArmResult = { arm, seed, ...evaluation, sampled, ...trained };
  writeFileSync(resultFile, JSON.stringify(result));
}

const execFileAsync = promisify(execFile);

/** Runs every (arm, seed) job as a child process of this script, `config.jobs` at a time. */
async function runJobs(startDir: string, onResult: (result: ArmResult) => void) {
  const results = mkdtempSync(join(tmpdir(), 'pilotrl-rl-vs-sft-results-'));
  const specs = config.seeds.flatMap((seed) => [`rl:${seed}`, `sft:${seed}`]);
  let next = 0;
  const worker = async () => {
    while (next < specs.length) {
      const spec = specs[next++]!;
      const file = join(results, `${spec.replace(':', '-')}.json`);
      const args = [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        `--job=${spec}`,
        `--start=${startDir}`,
        `--result=${file}`,
        ...process.argv.slice(2).filter((arg) => /^--(quick|budget=|rl-tasks=|demonstrator=)/.test(arg)),
      ];
      const child = execFileAsync(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
      child.child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(chunk));
      child.child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
      await child;
      onResult(JSON.parse(readFileSync(file, 'utf8')) as ArmResult);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, config.jobs) }, worker));
  } finally {
    rmSync(results, { recursive: true, force: true });
  }
}

async function main() {
  const wallStart = Date.now();
  log(
    `mode ${quick ? 'quick' : 'full'}; budget ${config.budget} CPU s per arm and seed; ${config.jobs} jobs at a time`,
  );
  const loaded = startArg !== undefined ? await TfjsPolicy.load(startArg) : undefined;
  const data = await loadData(loaded?.tokenizer, dataOptions);
  const policy = loaded ?? (await TfjsPolicy.create({ tokenizer: data.tokenizer, model: config.model }));
  const parameters = policy.parameterCount();
  const backend = policy.backend.choice;
  log(
    `${data.trainTasks.length} train tasks, ${data.datums.length} demonstration steps, ${parameters} parameters, backend ${backend}`,
  );

  // 1. SFT to the start band, keeping the best probe's weights in case the band is never reached.
  const startDir = startArg ?? mkdtempSync(join(tmpdir(), 'pilotrl-rl-vs-sft-start-'));
  const sftRng = createRng(benchSft.rng);
  const probes: { step: number; rate: number }[] = [];
  let step = 0;
  while (startArg === undefined && step < config.sft.maxSteps) {
    for (let i = 0; i < config.sft.probeEvery; i++, step++) {
      await randomBatchSftStep(policy, data.datums, sftRng, {
        ...config.sft,
        learningRate: warmedUpRate(step),
      });
    }
    const rate = (await evaluate(policy, data.probeTasks, config.maxSteps)).rate;
    log(`SFT step ${step}: probe success ${pct(rate)}`);
    if (probes.every((p) => rate > p.rate)) await policy.saveState(startDir);
    probes.push({ step, rate });
    if (rate >= config.startBand[0]) break;
  }
  const chosen = probes.reduce<{ step: number; rate: number } | undefined>(
    (best, p) => (best === undefined || p.rate > best.rate ? p : best),
    undefined,
  );
  await policy.loadState(startDir);
  log(`start checkpoint in ${startDir}`);
  const start = await evaluate(policy, data.evalTasks, config.maxSteps);
  const startSampled = await evaluate(policy, data.evalTasks, config.maxSteps, 1);
  log(
    `start checkpoint (${startArg ?? `SFT step ${chosen?.step}`}): held-out ${evalString(start)}, sampled ${evalString(startSampled)}`,
  );
  policy.dispose();

  // 2. RL and continued SFT from the checkpoint, per seed, in child processes.
  const results: ArmResult[] = [];
  // 3. Summary, rewritten after every job so a cut-short run still leaves its numbers.
  const summarize = () => {
    const seeds = config.seeds.filter(
      (seed) =>
        results.some((r) => r.seed === seed && r.arm === 'rl') &&
        results.some((r) => r.seed === seed && r.arm === 'sft'),
    );
    const arm = (name: 'rl' | 'sft') => results.filter((r) => r.arm === name && seeds.includes(r.seed));
    const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
    const gain = (name: 'rl' | 'sft') => mean(arm(name).map((r) => r.rate - start.rate));
    const sampledGain = (name: 'rl' | 'sft') =>
      mean(arm(name).map((r) => r.sampled.rate - startSampled.rate));
    const pooled = (name: 'rl' | 'sft') => {
      const successes = arm(name).reduce((n, r) => n + r.successes, 0);
      const episodes = arm(name).reduce((n, r) => n + r.episodes, 0);
      return {
        rate: successes / Math.max(1, episodes),
        ci95: wilsonInterval(successes, Math.max(1, episodes)),
      };
    };
    const rlGain = gain('rl');
    const sftGain = gain('sft');
    const inBand = start.rate >= config.startBand[0] && start.rate <= config.startBand[1];
    const goalMet = seeds.length === config.seeds.length && inBand && rlGain >= 0.1 && sftGain < rlGain;
    const row = (r: ArmResult) =>
      `| ${r.arm === 'rl' ? 'RL' : 'more SFT'} | ${r.seed} | ${pct(r.rate)} [${pct(r.ci95.low)}, ${pct(r.ci95.high)}] | ${(100 * (r.rate - start.rate)).toFixed(1)} | ${pct(r.sampled.rate)} | ${r.cpu.toFixed(0)} | ${r.work} ${r.arm === 'rl' ? 'updates' : 'steps'} | ${r.tokens} |`;
    const command = ['pnpm --filter @pilotrl/optim bench:rl-vs-sft', ...process.argv.slice(2)].join(' ');
    const lines = [
      '# RL vs. more SFT on generated ALFWorld tasks',
      '',
      `Command: \`${command}\` (${new Date().toISOString().slice(0, 16)}Z, wall ${((Date.now() - wallStart) / 60_000).toFixed(1)} min, backend ${backend}, ${config.jobs} jobs at a time on a shared ${availableParallelism()}-core machine).`,
      '',
      `Policy: d${config.model.dModel}/L${config.model.nLayers} tfjs transformer (${parameters} parameters, BPE vocabulary ${config.vocabSize}); prompt = task, held object, last 8 receptacles visited, last command and its observation; actions chosen by constrained decoding over the admissible commands; episodes capped at ${config.maxSteps} steps; evaluation greedy (the goal's measure) and sampled at temperature 1 (same tasks, fixed seed).`,
      '',
      `Start: SFT on ${data.datums.length} ${config.demonstrator === 'oracle' ? 'oracle' : "searching expert's (won episodes only)"} steps of ${data.trainTasks.length} train tasks (batch ${config.sft.batchSize}, lr ${config.sft.learningRate}), probing every ${config.sft.probeEvery} steps on ${2 * config.probePerSplit} held-out tasks (valid_seen and valid_unseen from 10000, disjoint from the evaluation), until a probe reached ≥ ${pct(config.startBand[0])}${startArg !== undefined ? ` (checkpoint loaded from ${startArg}, written by an earlier run)` : `: probes ${probes.map((p) => `${p.step}→${pct(p.rate)}`).join(', ')}; start = step ${chosen?.step}`}.`,
      '',
      `Budget: ${config.budget} CPU seconds (process user+system time) per arm and seed; RL's budget includes its rollouts. Evaluation: ${data.evalTasks.length} held-out episodes (${config.evalPerSplit} valid_seen + ${config.evalPerSplit} valid_unseen), seeds ${seeds.join(', ')} of ${config.seeds.join(', ')}.`,
      '',
      `RL: ${config.rl.tasksPerIteration} train tasks (${config.rl.tasks === 'demo' ? `of the ${data.trainTasks.length} demonstrated` : 'fresh generated ones, none demonstrated'}) × ${config.rl.groupSize} rollouts per update at temperature ${config.rl.temperature}, turn-level advantages (step weight 1, γ 0.95), PPO clip 0.2/0.28 on the constrained-decoding logprobs (sampler logprobs as old logprobs), ${config.rl.update.aggregation}, ${config.rl.update.minibatches} minibatches, Adam lr ${config.rl.update.adam.learningRate}, SFT anchor coefficient ${config.rl.update.anchorCoef} on ${config.rl.anchorDemos} demonstrations per step. Continued SFT: same demonstrations, constant lr ${config.sft.learningRate}.`,
      '',
      '| arm | seed | held-out success, greedy [95% CI] | gain vs start | sampled (T=1) | CPU s | work | forward/backward tokens |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      `| start (SFT) | — | ${pct(start.rate)} [${pct(start.ci95.low)}, ${pct(start.ci95.high)}] | — | ${pct(startSampled.rate)} | — | ${startArg !== undefined ? 'loaded checkpoint' : `${chosen?.step} SFT steps`} | — |`,
      ...seeds.flatMap((seed) =>
        arm('rl')
          .filter((r) => r.seed === seed)
          .concat(arm('sft').filter((r) => r.seed === seed))
          .map(row),
      ),
      '',
      `Pooled over seeds: RL ${pct(pooled('rl').rate)} [${pct(pooled('rl').ci95.low)}, ${pct(pooled('rl').ci95.high)}], more SFT ${pct(pooled('sft').rate)} [${pct(pooled('sft').ci95.low)}, ${pct(pooled('sft').ci95.high)}]. Mean gain: RL ${(100 * rlGain).toFixed(1)} points, more SFT ${(100 * sftGain).toFixed(1)} points (sampled: RL ${(100 * sampledGain('rl')).toFixed(1)}, more SFT ${(100 * sampledGain('sft')).toFixed(1)}). Start in the ${pct(config.startBand[0])}-${pct(config.startBand[1])} band: ${inBand ? 'yes' : 'no'}. Goal (start in band, RL ≥ +10 points and more than continued SFT, all seeds): ${goalMet ? 'met' : 'not met'}.`,
      '',
      '```json',
      JSON.stringify(
        {
          config,
          quick,
          start: { ...start, sampled: startSampled, probes, step: chosen?.step },
          results,
          rlGain,
          sftGain,
          goalMet,
        },
        null,
        1,
      ),
      '```',
      '',
    ];
    const out = join(
      dirname(fileURLToPath(import.meta.url)),
      'results',
      quick ? 'rl-vs-sft-quick.md' : 'rl-vs-sft.md',
    );
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, lines.join('\n'));
    console.log(lines.slice(0, lines.indexOf('```json')).join('\n'));
    log(`wrote ${out}`);
  };
  await runJobs(startDir, (result) => {
    results.push(result);
    if (results.filter((r) => r.seed === result.seed).length === 2) summarize();
  });
  if (startArg === undefined) rmSync(startDir, { recursive: true, force: true });
}

if (jobArg !== undefined) await runJob(jobArg, startArg!, flag('result')!);
else await main();
