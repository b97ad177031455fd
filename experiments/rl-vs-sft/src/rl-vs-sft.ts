// Self-improvement against more SFT on generated ALFWorld tasks, all from library code. A small
// tfjs policy is fine-tuned on the oracle's demonstrations (1,800 steps, then 300 with the learning
// rate falling to 0), or loaded with `--start`. From that start, per seed and side by side:
// (a) expert iteration (`createExpertIteration` of @pilotrl/optim): per iteration, sampled
//     rollouts on fresh train tasks through the agent loop (`choice` actions, ALFWorld's state
//     view), each won group's shortcut and each lost group's hindsight goal kept
//     (`relabelEpisodes` of @pilotrl/agent with ALFWorld's relabeller), then SFT steps drawing
//     most batches from everything kept and the rest from the demonstrations;
// (b) continued SFT on the demonstrations, at least as many process CPU seconds as (a) took;
// then both anneal the learning rate to 0 and are evaluated on held-out valid_seen + valid_unseen
// tasks, greedy and sampled at temperature 1, with Wilson 95% intervals. Each (arm, seed) runs in
// its own process; the control of a seed runs until its expert-iteration job has finished and
// reported its CPU seconds, so run an even number of jobs to keep each pair side by side. Each job
// writes its result to the results directory (logged at the start); a run given `--results=<dir>`
// and the same `--start` skips the jobs whose results are there, so a cut-short run continues.
//
//   pnpm --filter @pilotrl/experiment-rl-vs-sft start [--quick] [--start=<dir>] [--jobs=<n>] [--iterations=<n>]
//     [--results=<dir>]
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRng, type Datum, formatPercent, mean, wilsonInterval } from '@pilotrl/core';
import { createExpertIteration, linearAnneal, sftStep } from '@pilotrl/optim';
import { TfjsPolicy } from '@pilotrl/policy-tfjs';
import { play, selfImprovementExamples, taskSource } from './alfworld';
import {
  type BenchData,
  benchModel,
  benchSft,
  cpuSeconds,
  type Evaluation,
  evalString,
  evaluate,
  exampleDatums,
  loadData,
  log,
  randomBatchSftStep,
  warmedUpRate,
  winRate,
} from './harness';

const flag = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
const quick = process.argv.includes('--quick');
/** A start checkpoint written by an earlier run (its path is logged), to skip the first SFT. */
const startArg = flag('start');
/** Set in the processes that run one arm of one seed. */
const jobArg = flag('job');
/** Where each job's result goes; given, jobs whose result is already there are skipped. */
const resultsArg = flag('results');
const positive = (name: string, fallback: number) => {
  const value = Number(flag(name) ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number ≥ 1`);
  return value;
};

const config = {
  model: benchModel,
  vocabSize: 400,
  maxSteps: 25,
  demoTasks: quick ? 80 : 300,
  /** The start: SFT from scratch at the bench's rate after a warm-up, then a linear anneal to 0. */
  start: { steps: quick ? 150 : 1_800, anneal: quick ? 50 : 300 },
  evalPerSplit: quick ? 20 : 100,
  seeds: quick ? [0] : [0, 1, 2],
  jobs: positive('jobs', availableParallelism()),
  expertIteration: {
    iterations: positive('iterations', quick ? 3 : 60),
    /** Fresh generated train tasks per iteration (none of them demonstrated), one rollout each. */
    tasksPerIteration: quick ? 16 : 128,
    groupSize: 1,
    temperature: 1,
    sftSteps: quick ? 8 : 48,
    mix: 0.8,
    batchSize: 32,
    learningRate: 1e-3,
  },
  /** The control: continued SFT on the demonstrations at expert iteration's rate. */
  sft: { batchSize: 32, learningRate: 1e-3 },
  /** Both arms end with this many SFT steps, the rate falling linearly from 1e-3 to 0. */
  anneal: quick ? 20 : 300,
} as const;

type Arm = 'expert-iteration' | 'sft';

interface ArmResult extends Evaluation {
  arm: Arm;
  seed: number;
  /** Training CPU seconds before the anneal, and with it. */
  cpu: number;
  cpuWithAnneal: number;
  /** Expert-iteration iterations or SFT steps (before the anneal). */
  work: number;
  /** Expert iteration: rollout success per iteration, steps kept (won / hindsight). */
  rolloutSuccess?: number[];
  keptWon?: number;
  keptHindsight?: number;
  /** The same tasks played at temperature 1. */
  sampled: Evaluation;
}

const dataOptions = {
  demoTasks: config.demoTasks,
  evalPerSplit: config.evalPerSplit,
  maxSteps: config.maxSteps,
  vocabSize: config.vocabSize,
  contextLength: config.model.contextLength,
};

const annealRate = linearAnneal({ from: config.expertIteration.learningRate, steps: config.anneal });

/** Expert iteration from the start; returns what it did and leaves the policy trained. */
async function trainExpertIteration(policy: TfjsPolicy, seed: number, data: BenchData, cpuFile: string) {
  const settings = config.expertIteration;
  const iteration = createExpertIteration(
    {
      sftSteps: settings.sftSteps,
      batchSize: settings.batchSize,
      mix: settings.mix,
      learningRate: settings.learningRate,
      seed,
    },
    sftStep,
  );
  const rng = createRng(`rl-vs-sft/expert-iteration/${seed}`);
  const pool = await taskSource.tasks('train', { offset: 100_000, limit: 5_000 });
  const start = cpuSeconds();
  const rolloutSuccess: number[] = [];
  let keptWon = 0;
  let keptHindsight = 0;
  for (let i = 1; i <= settings.iterations; i++) {
    const tasks = Array.from({ length: settings.tasksPerIteration }, () => rng.pick(pool));
    const episodes = await play(policy, tasks, {
      groupSize: settings.groupSize,
      temperature: settings.temperature,
      maxSteps: config.maxSteps,
      seed: seed * 100_000 + i,
    });
    const kept = await selfImprovementExamples(episodes, config.maxSteps, rng);
    const won = exampleDatums(kept.won, policy.tokenizer);
    const hindsight = exampleDatums(kept.hindsight, policy.tokenizer);
    keptWon += won.length;
    keptHindsight += hindsight.length;
    const { metrics } = await iteration.step(policy, {
      kept: { own: won, hindsight },
      demonstrations: data.datums,
    });
    rolloutSuccess.push(winRate(episodes));
    log(
      `seed ${seed} expert iteration ${i}: rollout success ${formatPercent(winRate(episodes))}; groups won ${kept.report.wonGroups}, relabelled ${kept.report.hindsightGroups}, no goal ${kept.report.unreachedGroups}, unreplayable ${kept.report.unreplayableGoals}; kept ${won.length} + ${hindsight.length} steps (${metrics['expert_iteration/kept_total']} in all), ${metrics['expert_iteration/kept_batches']}/${settings.sftSteps} batches from them, sft loss ${metrics['losses/sft_loss']!.toFixed(3)} (${(cpuSeconds() - start).toFixed(0)} CPU s)`,
    );
  }
  const cpu = cpuSeconds() - start;
  writeFileSync(cpuFile, String(cpu));
  await iteration.step(policy, {
    kept: { own: [], hindsight: [] },
    demonstrations: data.datums,
    sftSteps: config.anneal,
    learningRate: annealRate,
  });
  return {
    cpu,
    cpuWithAnneal: cpuSeconds() - start,
    work: settings.iterations,
    rolloutSuccess,
    keptWon,
    keptHindsight,
  };
}

/** Continued SFT until expert iteration's CPU seconds (read from `cpuFile`) are matched, then the anneal. */
async function trainSft(policy: TfjsPolicy, seed: number, data: BenchData, cpuFile: string) {
  const rng = createRng(`rl-vs-sft/sft/${seed}`);
  const start = cpuSeconds();
  let steps = 0;
  let budget = Number.POSITIVE_INFINITY;
  while (cpuSeconds() - start < budget) {
    await randomBatchSftStep(policy, data.datums, rng, config.sft);
    steps++;
    if (steps % 20 === 0 && existsSync(cpuFile)) budget = Number(readFileSync(cpuFile, 'utf8'));
  }
  const cpu = cpuSeconds() - start;
  for (let step = 0; step < config.anneal; step++) {
    await randomBatchSftStep(policy, data.datums, rng, { ...config.sft, learningRate: annealRate(step) });
  }
  return { cpu, cpuWithAnneal: cpuSeconds() - start, work: steps };
}

/** Child process: one arm of one seed from the start checkpoint; writes its result as JSON. */
async function runJob(spec: string, startDir: string, resultDir: string) {
  const [arm, seedText] = spec.split(':') as [Arm, string];
  const seed = Number(seedText);
  const policy = await TfjsPolicy.load(startDir);
  const data = await loadData(policy.tokenizer, dataOptions);
  const cpuFile = join(resultDir, `expert-iteration-${seed}.cpu`);
  const trained =
    arm === 'expert-iteration'
      ? await trainExpertIteration(policy, seed, data, cpuFile)
      : await trainSft(policy, seed, data, cpuFile);
  const evaluation = await evaluate(policy, data.evalTasks, config.maxSteps);
  const sampled = await evaluate(policy, data.evalTasks, config.maxSteps, 1);
  log(
    `seed ${seed} ${arm === 'expert-iteration' ? 'expert iteration' : 'continued SFT'} after ${trained.work} ${arm === 'sft' ? 'steps' : 'iterations'} and the anneal (${trained.cpuWithAnneal.toFixed(0)} CPU s): held-out ${evalString(evaluation)}, sampled ${evalString(sampled)}`,
  );
  const result: ArmResult = { arm, seed, ...evaluation, sampled, ...trained };
  writeFileSync(join(resultDir, `${arm}-${seed}.json`), JSON.stringify(result));
}

const execFileAsync = promisify(execFile);

/** Runs every (arm, seed) job as a child process of this script, `config.jobs` at a time. */
async function runJobs(startDir: string, onResult: (result: ArmResult) => void) {
  const resultDir = resultsArg ?? mkdtempSync(join(tmpdir(), 'pilotrl-rl-vs-sft-results-'));
  mkdirSync(resultDir, { recursive: true });
  log(`job results in ${resultDir} (--results=${resultDir} --start=${startDir} continues a cut-short run)`);
  const resultFile = (spec: string) => join(resultDir, `${spec.replace(':', '-')}.json`);
  const specs = config.seeds.flatMap((seed) => [`expert-iteration:${seed}`, `sft:${seed}`]);
  for (const spec of specs.filter((spec) => existsSync(resultFile(spec)))) {
    log(`${spec}: result found, not run again`);
    onResult(JSON.parse(readFileSync(resultFile(spec), 'utf8')) as ArmResult);
  }
  const pending = specs.filter((spec) => !existsSync(resultFile(spec)));
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      const spec = pending[next++]!;
      const args = [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        `--job=${spec}`,
        `--start=${startDir}`,
        `--results=${resultDir}`,
        ...process.argv.slice(2).filter((arg) => /^--(quick|iterations=)/.test(arg)),
      ];
      const child = execFileAsync(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
      child.child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(chunk));
      child.child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
      await child;
      onResult(JSON.parse(readFileSync(resultFile(spec), 'utf8')) as ArmResult);
    }
  };
  await Promise.all(Array.from({ length: config.jobs }, worker));
  // A directory of our own goes once every job is in; a given one is the caller's to keep.
  if (resultsArg === undefined) rmSync(resultDir, { recursive: true, force: true });
}

/** SFT from scratch to the start checkpoint, saved to `dir`. */
async function trainStart(policy: TfjsPolicy, datums: readonly Datum[], dir: string) {
  const rng = createRng(benchSft.rng);
  const start = cpuSeconds();
  for (let step = 0; step < config.start.steps; step++) {
    await randomBatchSftStep(policy, datums, rng, { ...benchSft, learningRate: warmedUpRate(step) });
  }
  const annealed = linearAnneal({ from: benchSft.learningRate, steps: config.start.anneal });
  for (let step = 0; step < config.start.anneal; step++) {
    await randomBatchSftStep(policy, datums, rng, { ...benchSft, learningRate: annealed(step) });
  }
  await policy.saveState(dir);
  log(
    `start: ${config.start.steps} + ${config.start.anneal} annealing SFT steps (${(cpuSeconds() - start).toFixed(0)} CPU s), saved to ${dir}`,
  );
}

async function main() {
  const wallStart = Date.now();
  if (
    resultsArg !== undefined &&
    startArg === undefined &&
    existsSync(resultsArg) &&
    readdirSync(resultsArg).some((file) => file.endsWith('.json'))
  ) {
    throw new Error(`${resultsArg} holds earlier results; give the --start they were trained from`);
  }
  log(`mode ${quick ? 'quick' : 'full'}; ${config.jobs} jobs at a time`);
  const loaded = startArg !== undefined ? await TfjsPolicy.load(startArg) : undefined;
  const data = await loadData(loaded?.tokenizer, dataOptions);
  const policy = loaded ?? (await TfjsPolicy.create({ tokenizer: data.tokenizer, model: config.model }));
  const parameters = policy.parameterCount();
  const backend = policy.backend.choice;
  log(
    `${data.trainTasks.length} train tasks, ${data.datums.length} demonstration steps, ${parameters} parameters, backend ${backend}`,
  );
  const startDir = startArg ?? mkdtempSync(join(tmpdir(), 'pilotrl-rl-vs-sft-start-'));
  if (startArg === undefined) await trainStart(policy, data.datums, startDir);
  const start = await evaluate(policy, data.evalTasks, config.maxSteps);
  const startSampled = await evaluate(policy, data.evalTasks, config.maxSteps, 1);
  log(`start checkpoint: held-out ${evalString(start)}, sampled ${evalString(startSampled)}`);
  policy.dispose();

  const results: ArmResult[] = [];
  // The summary is rewritten after every job so a cut-short run still leaves its numbers.
  const summarize = () => {
    const seeds = config.seeds.filter((seed) =>
      (['expert-iteration', 'sft'] as const).every((arm) =>
        results.some((r) => r.seed === seed && r.arm === arm),
      ),
    );
    const arm = (name: Arm) => results.filter((r) => r.arm === name && seeds.includes(r.seed));
    const gain = (name: Arm) => mean(arm(name).map((r) => r.rate - start.rate));
    const sampledGain = (name: Arm) => mean(arm(name).map((r) => r.sampled.rate - startSampled.rate));
    const pooled = (name: Arm) => {
      const successes = arm(name).reduce((n, r) => n + r.successes, 0);
      const episodes = Math.max(
        1,
        arm(name).reduce((n, r) => n + r.episodes, 0),
      );
      const { rate, low, high } = wilsonInterval(successes, episodes);
      return `${formatPercent(rate)} [${formatPercent(low)}, ${formatPercent(high)}] (${successes}/${episodes})`;
    };
    const eiGain = gain('expert-iteration');
    const sftGain = gain('sft');
    const goalMet = seeds.length === config.seeds.length && eiGain >= 0.08 && sftGain < eiGain;
    const label = (name: Arm) => (name === 'sft' ? 'more SFT' : 'expert iteration');
    const row = (r: ArmResult) =>
      `| ${label(r.arm)} | ${r.seed} | ${formatPercent(r.rate)} [${formatPercent(r.ci95.low)}, ${formatPercent(r.ci95.high)}] | ${(100 * (r.rate - start.rate)).toFixed(1)} | ${formatPercent(r.sampled.rate)} | ${(100 * (r.sampled.rate - startSampled.rate)).toFixed(1)} | ${r.cpu.toFixed(0)} / ${r.cpuWithAnneal.toFixed(0)} | ${r.work} ${r.arm === 'sft' ? 'steps' : `iterations, kept ${r.keptWon} + ${r.keptHindsight} steps`} |`;
    const command = ['pnpm --filter @pilotrl/experiment-rl-vs-sft start', ...process.argv.slice(2)].join(' ');
    const ei = config.expertIteration;
    const lines = [
      '# Expert iteration vs. more SFT on generated ALFWorld tasks',
      '',
      `Command: \`${command}\` (${new Date().toISOString().slice(0, 16)}Z, wall ${((Date.now() - wallStart) / 60_000).toFixed(1)} min, backend ${backend}, ${config.jobs} jobs at a time on a shared ${availableParallelism()}-core machine).`,
      '',
      `Policy: d${config.model.dModel}/L${config.model.nLayers} tfjs transformer (${parameters} parameters, BPE vocabulary ${config.vocabSize}), played by @pilotrl/agent's rollout engine: ReAct in the \`choice\` action space (constrained decoding over the admissible commands) with ALFWorld's state view (task, held object, last 8 receptacles visited, last command and its observation); episodes capped at ${config.maxSteps} steps.`,
      '',
      `Start: ${startArg !== undefined ? `loaded from ${startArg}` : `SFT from scratch on ${data.datums.length} oracle steps of ${data.trainTasks.length} train tasks, ${config.start.steps} steps (batch ${benchSft.batchSize}, lr ${benchSft.learningRate} after ${benchSft.warmupSteps} warm-up steps) and ${config.start.anneal} steps annealed to 0`}.`,
      '',
      `Expert iteration: ${ei.iterations} iterations of ${ei.tasksPerIteration} fresh train tasks × ${ei.groupSize} rollout at temperature ${ei.temperature}; won groups kept as shortcuts, lost groups as hindsight goals (relabelEpisodes + alfworldHindsight); ${ei.sftSteps} SFT steps per iteration (batch ${ei.batchSize}, lr ${ei.learningRate}), ${formatPercent(ei.mix)} of the batches from the kept steps, the rest from the demonstrations. Continued SFT: the demonstrations at lr ${config.sft.learningRate} until it has used at least expert iteration's CPU seconds. Both then anneal for ${config.anneal} steps (lr 1e-3 → 0). Evaluation: ${data.evalTasks.length} held-out episodes (${config.evalPerSplit} valid_seen + ${config.evalPerSplit} valid_unseen) per arm and seed, greedy and sampled at T=1.`,
      '',
      '| arm | seed | held-out greedy [95% CI] | gain (points) | sampled (T=1) | gain (points) | CPU s (before / with anneal) | work |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      `| start (SFT) | — | ${formatPercent(start.rate)} [${formatPercent(start.ci95.low)}, ${formatPercent(start.ci95.high)}] | — | ${formatPercent(startSampled.rate)} | — | — | — |`,
      ...seeds.flatMap((seed) =>
        (['expert-iteration', 'sft'] as const)
          .flatMap((name) => arm(name).filter((r) => r.seed === seed))
          .map(row),
      ),
      '',
      `Pooled greedy: expert iteration ${pooled('expert-iteration')}, more SFT ${pooled('sft')}. Mean gain over the start, greedy: expert iteration ${(100 * eiGain).toFixed(1)} points, more SFT ${(100 * sftGain).toFixed(1)}; sampled: ${(100 * sampledGain('expert-iteration')).toFixed(1)} and ${(100 * sampledGain('sft')).toFixed(1)}. Goal (all seeds, expert iteration ≥ +8 points greedy and more than continued SFT): ${goalMet ? 'met' : 'not met'}.`,
      '',
      '```json',
      JSON.stringify(
        { config, quick, start: { ...start, sampled: startSampled }, results, eiGain, sftGain, goalMet },
        null,
        1,
      ),
      '```',
      '',
    ];
    const out = join(
      dirname(fileURLToPath(import.meta.url)),
      '..',
      'results',
      quick ? 'rl-vs-sft-quick.md' : 'rl-vs-sft.md',
    );
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, lines.join('\n'));
    return { out, eiGain, sftGain, goalMet, pooled };
  };
  await runJobs(startDir, (result) => {
    results.push(result);
    summarize();
  });
  const summary = summarize();
  log(
    `expert iteration ${formatPercent(summary.eiGain)} vs more SFT ${formatPercent(summary.sftGain)} mean greedy gain; goal ${summary.goalMet ? 'met' : 'not met'}; written to ${summary.out}`,
  );
  if (startArg === undefined && resultsArg === undefined) rmSync(startDir, { recursive: true, force: true });
}

if (jobArg !== undefined) {
  const results = flag('results');
  if (startArg === undefined || results === undefined) throw new Error('--job needs --start and --results');
  await runJob(jobArg, startArg, results);
} else {
  await main();
}
