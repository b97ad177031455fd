// RL against more SFT on generated ALFWorld tasks. A small tfjs policy is fine-tuned on oracle
// demonstrations until its held-out success reaches the 30-50% band; from that checkpoint, per
// seed, (a) RL (turn-level advantages, PPO clip-higher, low learning rate, SFT anchor, decoding
// constrained to the admissible commands) and (b) continued SFT each get the same CPU-time budget,
// and both are evaluated greedily on held-out valid_seen + valid_unseen tasks with Wilson 95% CIs.
//
//   pnpm --filter @pilotrl/optim bench:rl-vs-sft [--quick] [--budget=<cpu seconds per arm>]
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wilsonInterval } from '@pilotrl/agent';
import { type ChatMessage, createRng, type Datum, type Rng, type TaskRef } from '@pilotrl/core';
import { sftDatum, TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { createUpdateStep } from '../src/index';
import { demonstrations, play, taskSource } from './rl-vs-sft/alfworld-play';

const quick = process.argv.includes('--quick');
const budgetArg = process.argv.find((arg) => arg.startsWith('--budget='));
/** A start checkpoint written by an earlier run (its path is logged), to skip the first SFT. */
const startArg = process.argv.find((arg) => arg.startsWith('--start='))?.slice('--start='.length);

const config = {
  model: { dModel: 64, nLayers: 2, nHeads: 4, contextLength: 512 },
  vocabSize: 400,
  maxSteps: 25,
  demoTasks: quick ? 80 : 300,
  sft: {
    batchSize: 32,
    learningRate: 3e-3,
    warmupSteps: 20,
    probeEvery: quick ? 40 : 150,
    maxSteps: quick ? 120 : 900,
  },
  /** The start checkpoint is the first probe at or above this success. */
  startBand: [0.3, 0.5] as const,
  probeTasks: quick ? 20 : 40,
  evalPerSplit: quick ? 20 : 100,
  seeds: quick ? [0] : [0, 1, 2],
  /** CPU seconds of training per arm and seed (rollouts included for RL). */
  budget: budgetArg ? Number(budgetArg.split('=')[1]) : quick ? 30 : 100,
  rl: {
    tasksPerIteration: quick ? 4 : 8,
    groupSize: 8,
    temperature: 1,
    anchorDemos: 32,
    update: {
      estimator: 'turn-level',
      estimatorArgs: { stepWeight: 1, gamma: 0.95 },
      loss: 'ppo',
      lossArgs: { clipLow: 0.2, clipHigh: 0.28 },
      epochs: 1,
      minibatches: 2,
      anchorCoef: 0.1,
      adam: { learningRate: 3e-4, gradClipNorm: 1 },
    },
  },
};

const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

interface Evaluation {
  successes: number;
  episodes: number;
  rate: number;
  ci95: { low: number; high: number };
  perSplit: Record<string, number>;
}

async function evaluate(policy: TfjsPolicy, tasks: readonly TaskRef[]): Promise<Evaluation> {
  const episodes = await play(policy, tasks, {
    groupSize: 1,
    temperature: 0,
    maxSteps: config.maxSteps,
    seed: 0,
  });
  const successes = episodes.filter((e) => e.won).length;
  const perSplit: Record<string, number> = {};
  for (const split of new Set(tasks.map((t) => t.split))) {
    const own = episodes.filter((e) => e.split === split);
    perSplit[split] = own.filter((e) => e.won).length / own.length;
  }
  return {
    successes,
    episodes: episodes.length,
    rate: successes / episodes.length,
    ci95: wilsonInterval(successes, episodes.length),
    perSplit,
  };
}

/** One SFT step on a random batch; returns the trained token count. */
async function sftStep(policy: TfjsPolicy, datums: readonly Datum[], rng: Rng, learningRate: number) {
  const batch = Array.from({ length: config.sft.batchSize }, () => rng.pick(datums));
  const count = batch.reduce((n, d) => n + d.weights.filter((w) => w !== 0).length, 0);
  await policy.forwardBackward(
    batch.map((d) => ({ ...d, weights: d.weights.map((w) => w / count) })),
    'cross_entropy',
  );
  await policy.optimStep({ learningRate, beta2: 0.95, weightDecay: 0.01, gradClipNorm: 1 });
  return batch.reduce((n, d) => n + d.tokenIds.length, 0);
}

const evalString = (e: Evaluation) =>
  `${pct(e.rate)} [${pct(e.ci95.low)}, ${pct(e.ci95.high)}] (${e.successes}/${e.episodes}; ${Object.entries(
    e.perSplit,
  )
    .map(([split, rate]) => `${split} ${pct(rate)}`)
    .join(', ')})`;

async function main() {
  const wallStart = Date.now();
  log(`mode ${quick ? 'quick' : 'full'}; budget ${config.budget} CPU s per arm and seed`);
  const trainTasks = await taskSource.tasks('train', { limit: config.demoTasks });
  const demos = await demonstrations(trainTasks, config.maxSteps);
  const probeTasks = await taskSource.tasks('valid_seen', { offset: 10_000, limit: config.probeTasks });
  const evalTasks = [
    ...(await taskSource.tasks('valid_seen', { limit: config.evalPerSplit })),
    ...(await taskSource.tasks('valid_unseen', { limit: config.evalPerSplit })),
  ];
  const corpus = demos.flatMap((d) => [
    (d.prompt as readonly ChatMessage[]).map((m) => m.content).join('\n'),
    d.response as string,
  ]);
  const policy =
    startArg !== undefined
      ? await TfjsPolicy.load(startArg)
      : await TfjsPolicy.create({
          tokenizer: Tokenizer.train(corpus, { vocabSize: config.vocabSize }),
          model: config.model,
        });
  const tokenizer = policy.tokenizer;
  const datums = demos
    .map((d) => sftDatum(tokenizer, d))
    .filter((d) => d.tokenIds.length < config.model.contextLength);
  log(
    `${trainTasks.length} train tasks, ${datums.length} demonstration steps, ${policy.parameterCount()} parameters, backend ${policy.backend.choice}`,
  );

  // 1. SFT to the start band.
  const sftRng = createRng('rl-vs-sft/start');
  let step = 0;
  let probe = 0;
  const sftStart = cpuSeconds();
  while (startArg === undefined && step < config.sft.maxSteps) {
    for (let i = 0; i < config.sft.probeEvery; i++, step++) {
      const lr = config.sft.learningRate * Math.min(1, (step + 1) / config.sft.warmupSteps);
      await sftStep(policy, datums, sftRng, lr);
    }
    probe = (await evaluate(policy, probeTasks)).rate;
    log(`SFT step ${step}: probe success ${pct(probe)} (${(cpuSeconds() - sftStart).toFixed(0)} CPU s)`);
    if (probe >= config.startBand[0]) break;
  }
  const startDir = startArg ?? join(tmpdir(), `pilotrl-rl-vs-sft-${process.pid}`);
  if (startArg === undefined) await policy.saveState(startDir);
  log(`start checkpoint in ${startDir}`);
  const start = await evaluate(policy, evalTasks);
  log(`start checkpoint (${startArg ?? `SFT step ${step}`}): held-out ${evalString(start)}`);

  // 2. RL and continued SFT from the checkpoint, per seed, for the same CPU time.
  const runs: {
    seed: number;
    rl: Evaluation & { cpu: number; iterations: number; tokens: number; rolloutSuccess: number[] };
    sft: Evaluation & { cpu: number; steps: number; tokens: number };
  }[] = [];
  // 3. Summary, rewritten after every seed so a cut-short run still leaves its numbers.
  const summarize = () => {
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rlGain = mean(runs.map((r) => r.rl.rate - start.rate));
    const sftGain = mean(runs.map((r) => r.sft.rate - start.rate));
    const pooled = (arm: 'rl' | 'sft') => {
      const successes = runs.reduce((n, r) => n + r[arm].successes, 0);
      const episodes = runs.reduce((n, r) => n + r[arm].episodes, 0);
      return { rate: successes / episodes, ci95: wilsonInterval(successes, episodes) };
    };
    const goalMet = rlGain >= 0.1 && sftGain < rlGain;
    const lines = [
      '# RL vs. more SFT on generated ALFWorld tasks',
      '',
      `Command: \`pnpm --filter @pilotrl/optim bench:rl-vs-sft${quick ? ' --quick' : ''}${budgetArg ? ` ${budgetArg}` : ''}${startArg !== undefined ? ` --start=${startArg}` : ''}\` (${new Date().toISOString().slice(0, 16)}Z, wall ${((Date.now() - wallStart) / 60_000).toFixed(1)} min, backend ${policy.backend.choice}, shared 2-core machine).`,
      '',
      `Policy: d${config.model.dModel}/L${config.model.nLayers} tfjs transformer (${policy.parameterCount()} parameters, BPE vocabulary ${config.vocabSize}); prompt = task, held object, last 8 receptacles visited, last command and its observation; actions chosen by constrained decoding over the admissible commands; episodes capped at ${config.maxSteps} steps; evaluation greedy.`,
      '',
      `Start: SFT on ${datums.length} oracle steps of ${trainTasks.length} train tasks (batch ${config.sft.batchSize}, lr ${config.sft.learningRate}) until a ${config.probeTasks}-task probe (valid_seen tasks 10000+, disjoint from the evaluation) reached ≥ ${pct(config.startBand[0])}${startArg !== undefined ? ` (checkpoint loaded from ${startArg}, written by an earlier run of this script)` : `: ${step} steps, probe ${pct(probe)}`}.`,
      '',
      `Budget: ${config.budget} CPU seconds (process user+system time) per arm and seed; RL's budget includes its rollouts. Evaluation: ${evalTasks.length} held-out episodes (${config.evalPerSplit} valid_seen + ${config.evalPerSplit} valid_unseen), seeds ${runs.map((r) => r.seed).join(', ')} of ${config.seeds.join(', ')}.`,
      '',
      `RL: ${config.rl.tasksPerIteration} tasks × ${config.rl.groupSize} rollouts per update at temperature ${config.rl.temperature}, turn-level advantages (step weight 1, γ 0.95), PPO clip 0.2/0.28, ${config.rl.update.minibatches} minibatches, Adam lr ${config.rl.update.adam.learningRate}, SFT anchor coefficient ${config.rl.update.anchorCoef} on ${config.rl.anchorDemos} demonstrations per step. Continued SFT: same demonstrations, constant lr ${config.sft.learningRate}.`,
      '',
      '| arm | seed | held-out success [95% CI] | gain vs start | CPU s | work | forward/backward tokens |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      `| start (SFT) | — | ${pct(start.rate)} [${pct(start.ci95.low)}, ${pct(start.ci95.high)}] | — | — | ${startArg !== undefined ? 'loaded checkpoint' : `${step} SFT steps`} | — |`,
      ...runs.flatMap((r) => [
        `| RL | ${r.seed} | ${pct(r.rl.rate)} [${pct(r.rl.ci95.low)}, ${pct(r.rl.ci95.high)}] | ${(100 * (r.rl.rate - start.rate)).toFixed(1)} | ${r.rl.cpu.toFixed(0)} | ${r.rl.iterations} updates | ${r.rl.tokens} |`,
        `| more SFT | ${r.seed} | ${pct(r.sft.rate)} [${pct(r.sft.ci95.low)}, ${pct(r.sft.ci95.high)}] | ${(100 * (r.sft.rate - start.rate)).toFixed(1)} | ${r.sft.cpu.toFixed(0)} | ${r.sft.steps} steps | ${r.sft.tokens} |`,
      ]),
      '',
      `Pooled over seeds: RL ${pct(pooled('rl').rate)} [${pct(pooled('rl').ci95.low)}, ${pct(pooled('rl').ci95.high)}], more SFT ${pct(pooled('sft').rate)} [${pct(pooled('sft').ci95.low)}, ${pct(pooled('sft').ci95.high)}]. Mean gain: RL ${(100 * rlGain).toFixed(1)} points, more SFT ${(100 * sftGain).toFixed(1)} points. Goal (RL ≥ +10 points and more than continued SFT): ${goalMet ? 'met' : 'not met'}.`,
      '',
      '```json',
      JSON.stringify(
        { config, quick, start: { ...start, sftSteps: step, probe }, runs, rlGain, sftGain, goalMet },
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
  for (const seed of config.seeds) {
    await policy.loadState(startDir);
    const update = createUpdateStep({ ...config.rl.update, seed });
    const rng = createRng(`rl-vs-sft/rl/${seed}`);
    const rlStart = cpuSeconds();
    let iterations = 0;
    let rlTokens = 0;
    const rolloutSuccess: number[] = [];
    while (cpuSeconds() - rlStart < config.budget) {
      const tasks = Array.from({ length: config.rl.tasksPerIteration }, () => rng.pick(trainTasks));
      const episodes = await play(policy, tasks, {
        groupSize: config.rl.groupSize,
        temperature: config.rl.temperature,
        maxSteps: config.maxSteps,
        seed: seed * 100_000 + iterations,
      });
      const anchor = Array.from({ length: config.rl.anchorDemos }, () => rng.pick(datums));
      const { metrics } = await update(policy, episodes, { anchor });
      const success = episodes.filter((e) => e.won).length / episodes.length;
      rolloutSuccess.push(success);
      rlTokens += episodes.reduce(
        (n, e) => n + e.turns.reduce((m, t) => m + t.generations[0]!.tokenIds.length, 0),
        0,
      );
      iterations++;
      log(
        `seed ${seed} RL iter ${iterations}: rollout success ${pct(success)}, zero-variance groups ${metrics['charts/zero_variance_groups']}/${metrics['charts/groups']}, approx_kl ${(metrics['losses/approx_kl'] ?? 0).toFixed(4)}, clipfrac ${(metrics['losses/clipfrac'] ?? 0).toFixed(3)} (${(cpuSeconds() - rlStart).toFixed(0)} CPU s)`,
      );
    }
    const rlCpu = cpuSeconds() - rlStart;
    const rlEval = await evaluate(policy, evalTasks);
    log(`seed ${seed} RL after ${iterations} iterations: held-out ${evalString(rlEval)}`);

    await policy.loadState(startDir);
    const sftRngSeed = createRng(`rl-vs-sft/sft/${seed}`);
    const moreStart = cpuSeconds();
    let steps = 0;
    let sftTokens = 0;
    while (cpuSeconds() - moreStart < config.budget) {
      sftTokens += await sftStep(policy, datums, sftRngSeed, config.sft.learningRate);
      steps++;
    }
    const sftCpu = cpuSeconds() - moreStart;
    const sftEval = await evaluate(policy, evalTasks);
    log(`seed ${seed} continued SFT after ${steps} steps: held-out ${evalString(sftEval)}`);
    runs.push({
      seed,
      rl: { ...rlEval, cpu: rlCpu, iterations, tokens: rlTokens, rolloutSuccess },
      sft: { ...sftEval, cpu: sftCpu, steps, tokens: sftTokens },
    });
    summarize();
  }
  if (startArg === undefined) rmSync(startDir, { recursive: true, force: true });
}

await main();
