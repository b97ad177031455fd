// The curriculum runner: an optional SFT warm start, then the configured stages in order, each
// continuing from the weights the previous one left. Every iteration writes one metrics line;
// evaluations and checkpoints happen on schedule; a resumed run continues from the latest
// checkpoint with the same RNG state, weights, optimizer state and truncated logs, so it
// reproduces the uninterrupted run metric for metric.
import { createRng, formatPercent, hashString, rngFromState } from '@pilotrl/core';
import type { CurriculumConfig } from '../config/curriculum-config';
import { curriculumJudging, evalSummary, evaluateEnvs } from '../evaluation/evaluate-envs';
import { ProgressBar } from '../reporting/progress';
import { saveCheckpoint, type TrainerState } from '../run/checkpoint';
import { cpuMark, cpuSecondsSince } from '../run/cpu-time';
import { runPaths } from '../run/run-dir';
import { logEval, logMetrics, logSizes, openRunLogs, rewindLogs } from '../run/run-logs';
import { type EvalRecord, type MetricsRecord, readEvals, readMetrics } from '../run/run-records';
import { expertIterationRunner } from './expert-iteration-phase';
import { describeVerdict, HackingWatch, watchCoverage, watchFlag, watchMetrics } from './hacking-watch';
import { lightEpisode, noUpdateNote } from './phase-metrics';
import { curriculumPhases, type Phase } from './phase-plan';
import type { PhaseRunner, RunContext } from './phase-runner';
import { policyGradientRunner } from './policy-gradient-phase';
import { sftRunner } from './sft-phase';
import { turnZeroNotice } from './turn-zero-notice';

/** The seed of a run's evaluations: the same tasks and order at every evaluation of the run. */
export const evalSeedOf = (config: Pick<CurriculumConfig, 'seed'>): number =>
  hashString(`${config.seed}/eval`) >>> 1;

/** Runs (or continues from `state`) every phase of the curriculum. */
export async function runCurriculum(context: RunContext, resumeFrom?: TrainerState): Promise<EvalRecord[]> {
  const { config, runDir, policy, log } = context;
  const paths = runPaths(runDir);
  const logs = openRunLogs(paths, config.logging);
  const phases = curriculumPhases(config);
  const state: TrainerState = resumeFrom ?? {
    format: 1,
    phase: 0,
    iteration: 0,
    globalIteration: 0,
    rngState: createRng(config.seed).state(),
    policyVersion: policy.version,
    logBytes: {},
    trainCpuSeconds: 0,
  };
  if (resumeFrom !== undefined) {
    const rewound = rewindLogs(logs, resumeFrom.logBytes);
    if (rewound !== undefined) log(rewound);
    log(
      state.phase >= phases.length
        ? `the run finished at global iteration ${state.globalIteration}; nothing left to train`
        : `resuming at ${phases[state.phase]!.name} iteration ${state.iteration} (global ${state.globalIteration})`,
    );
  }
  // The watch reads back what the logs hold (after a resume, up to the checkpoint) to judge on.
  const watch = config.watch.enabled
    ? new HackingWatch(
        config.watch,
        resumeFrom === undefined
          ? undefined
          : { metrics: readMetrics(paths.metrics), evals: readEvals(paths.evals) },
      )
    : undefined;
  if (resumeFrom === undefined) for (const line of watchCoverage(config)) log(`watch: ${line}`);
  const rng = rngFromState(state.rngState, hashString(`${config.seed}`));
  const evalSeed = evalSeedOf(config);
  let lastEvals: EvalRecord[] = [];
  const totalIterations = phases.reduce((sum, p) => sum + p.iterations, 0);

  /** Saves the trainer at `position`: where a resumed run continues. */
  const checkpoint = async (position: { phase: number; iteration: number }, phaseState?: unknown) => {
    const { phaseState: _resumed, ...trainer } = state;
    const saved: TrainerState = {
      ...trainer,
      ...position,
      ...(phaseState === undefined ? {} : { phaseState }),
      rngState: rng.state(),
      policyVersion: policy.version,
      logBytes: logSizes(logs),
    };
    const dir = await saveCheckpoint(paths.checkpoints, saved, policy, config.checkpoint.keep);
    log(`checkpoint saved: ${dir} (global iteration ${state.globalIteration})`);
  };

  const judged = context.envs.map((env) => ({
    ...env,
    judging: curriculumJudging(env.config, env.provider),
  }));
  const evalNotice = turnZeroNotice(
    log,
    'eval',
    (envId) => context.envs.find((env) => env.provider.envId === envId)?.config,
  );
  const runEval = async (phase: Phase) => {
    const { records } = await evaluateEnvs(
      judged,
      policy,
      { ...config.eval, seed: evalSeed },
      { step: state.globalIteration, phase: phase.name },
      evalNotice,
    );
    for (const record of records) logEval(logs, record);
    lastEvals = records;
    log(`eval after ${phase.name} iteration ${state.iteration}: ${evalSummary(records)}`);
    return records;
  };

  for (; state.phase < phases.length; state.phase++, state.iteration = 0) {
    const phase = phases[state.phase]!;
    const bar = new ProgressBar(
      `[${state.phase + 1}/${phases.length} ${phase.name}]`,
      phase.iterations,
      context.progress,
      Date.now,
      state.iteration,
    );
    // The watch's flag of the phase's latest verdict, shown until the next one.
    let flag: string | undefined;
    // Whether the bar holds a line a status line must not be written into (on a terminal).
    let barDrawn = false;
    // What the phase logs while it runs (its rollouts' warnings) goes on a line of its own.
    const phaseLog = (line: string) => {
      if (barDrawn) bar.finish();
      barDrawn = false;
      log(line);
    };
    const runner = await phaseRunner({ ...context, log: phaseLog }, phase);
    if (state.iteration > 0 && state.phaseState !== undefined) runner.importState?.(state.phaseState);
    try {
      while (state.iteration < phase.iterations) {
        const started = cpuMark();
        const { metrics, episodes } = await runner.iterate(rng, state.iteration);
        const iterationCpuSeconds = cpuSecondsSince(started);
        state.trainCpuSeconds = (state.trainCpuSeconds ?? 0) + iterationCpuSeconds;
        state.iteration++;
        state.globalIteration++;
        const phaseDone = state.iteration === phase.iterations;
        // The evaluation runs before the iteration's metrics line is written, so the line carries
        // the watch's verdict on it.
        let evals: EvalRecord[] = [];
        if (phaseDone || state.iteration % config.eval.every === 0) {
          if (barDrawn) bar.finish();
          barDrawn = false;
          evals = await runEval(phase);
        }
        // An update that changed nothing says why, in the record and on the progress line.
        const note = noUpdateNote(metrics);
        const record: MetricsRecord = {
          step: state.globalIteration,
          phase: phase.name,
          phaseIndex: state.phase,
          iteration: state.iteration,
          ...metrics,
          'compute/iteration_cpu_seconds': iterationCpuSeconds,
          'compute/train_cpu_seconds': state.trainCpuSeconds,
          ...(note === undefined ? {} : { note }),
        };
        const verdict = watch?.check(record, evals) ?? null;
        if (verdict !== null) {
          flag = watchFlag(verdict);
          if (flag !== undefined) log(describeVerdict(verdict));
        }
        logMetrics(logs, verdict === null ? record : { ...record, ...watchMetrics(verdict) });
        for (const episode of episodes.slice(0, config.sampleEpisodes)) {
          logs.episodes.append({
            step: state.globalIteration,
            phase: phase.name,
            episode: lightEpisode(episode),
          });
        }
        const figures: Record<string, string> = { global: `${state.globalIteration}/${totalIterations}` };
        if (metrics['charts/success_rate'] !== undefined)
          figures.success = formatPercent(metrics['charts/success_rate']);
        if (metrics['losses/sft_loss'] !== undefined) figures.loss = metrics['losses/sft_loss'].toFixed(3);
        if (lastEvals.length > 0)
          figures.eval = lastEvals.map((r) => formatPercent(r.success.rate)).join('/');
        if (flag !== undefined) figures.watch = flag;
        bar.update(state.iteration, figures, note === undefined ? [] : [note]);
        barDrawn = true;
        const checkpointDue = phaseDone || state.globalIteration % config.checkpoint.every === 0;
        if (checkpointDue) {
          bar.finish();
          barDrawn = false;
        }
        if (phaseDone) {
          // The end of a phase is saved as the start of the next, which begins from these weights.
          await checkpoint({ phase: state.phase + 1, iteration: 0 });
        } else if (state.globalIteration % config.checkpoint.every === 0) {
          await checkpoint({ phase: state.phase, iteration: state.iteration }, runner.exportState?.());
        }
      }
    } finally {
      if (barDrawn) bar.finish();
      await runner.close();
    }
  }
  return lastEvals;
}

/** The runner of a phase: the SFT warm start, or a stage by its algorithm. */
async function phaseRunner(context: RunContext, phase: Phase): Promise<PhaseRunner> {
  if (phase.kind === 'sft') return sftRunner(context);
  if (phase.stage!.algorithm === 'expert-iteration') return expertIterationRunner(context, phase);
  return policyGradientRunner(context, phase);
}
