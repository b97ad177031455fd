// The curriculum runner: an optional SFT warm start, then the configured stages in order, each
// continuing from the weights the previous one left. Every iteration writes one metrics line;
// evaluations and checkpoints happen on schedule; a resumed run continues from the latest
// checkpoint with the same RNG state, weights, optimizer state and truncated logs, so it
// reproduces the uninterrupted run metric for metric.

import {
  createVectorEnv,
  evaluate,
  type RolloutHooks,
  relabelEpisodes,
  replayScripts,
  rollout,
} from '@pilotrl/agent';
import {
  CheckpointError,
  ConfigError,
  createRng,
  type Episode,
  formatPercent,
  hashString,
  mean,
  type Policy,
  type Rng,
  rngFromState,
} from '@pilotrl/core';
import { createExpertIteration, createUpdateStep, type UpdateStep } from '@pilotrl/optim';
import {
  sftDatum,
  sftStep,
  type TfjsPolicy,
  TfjsPolicy as TfjsPolicyClass,
  warmupCosine,
} from '@pilotrl/policy-tfjs';
import { latestCheckpoint, readTrainerState, saveCheckpoint, type TrainerState } from './checkpoint';
import type { CurriculumConfig, StageConfig } from './config';
import type { EnvProvider } from './env-providers';
import { JsonlWriter } from './jsonl';
import { checkEnvAndSplits, checkFirstPromptFits } from './preflight';
import { ProgressBar, type ProgressStream } from './progress';
import { runPaths } from './run-dir';
import { type EvalRecord, evalRecordOf } from './run-records';
import {
  agentOptionsFor,
  backendOption,
  createAgent,
  createPolicy,
  demonstrationsFor,
  envOptionsFor,
  envProviderFor,
  trainTokenizer,
} from './runtime';
import { createPlanJudging, createStageScorer, type PlanJudging } from './stage-rewards';

export interface Phase {
  name: string;
  kind: 'sft' | StageConfig['kind'];
  iterations: number;
  stage?: StageConfig;
}

export function curriculumPhases(config: CurriculumConfig): Phase[] {
  const phases: Phase[] = [];
  if (config.sft !== undefined) {
    phases.push({
      name: 'sft',
      kind: 'sft',
      iterations: Math.ceil(config.sft.steps / config.sft.stepsPerIteration),
    });
  }
  config.stages.forEach((stage, index) => {
    const name =
      stage.name ??
      (config.stages.filter((s) => s.kind === stage.kind).length > 1
        ? `${stage.kind}-${index + 1}`
        : stage.kind);
    phases.push({ name, kind: stage.kind, iterations: stage.iterations, stage });
  });
  return phases;
}

export interface RunContext {
  config: CurriculumConfig;
  runDir: string;
  provider: EnvProvider;
  policy: TfjsPolicy;
  /** Writes a status line (checkpoints, evals) to the user. */
  log: (line: string) => void;
  progress: ProgressStream;
}

/** Builds the env provider and policy of a fresh run (tokenizer trained on oracle demonstrations). */
export async function startRun(config: CurriculumConfig): Promise<{
  provider: EnvProvider;
  policy: TfjsPolicy;
  dataHashes: Record<string, string>;
}> {
  const provider = envProviderFor(config);
  await checkEnvAndSplits(config, provider);
  const policy = await initialPolicy(config, provider);
  try {
    await checkFirstPromptFits(config, provider, policy.policy.sampler());
  } catch (error) {
    policy.policy.dispose();
    throw error;
  }
  return { provider, ...policy };
}

async function initialPolicy(
  config: CurriculumConfig,
  provider: EnvProvider,
): Promise<{ policy: TfjsPolicy; dataHashes: Record<string, string> }> {
  if (config.policy.init !== undefined) {
    const policy = await TfjsPolicyClass.load(config.policy.init, {
      name: config.name,
      samplingSeed: config.seed,
      ...backendOption(config.policy.backend),
    });
    if (config.policy.valueHead && !policy.model.config.valueHead) {
      policy.dispose();
      throw new ConfigError(
        `policy.valueHead: the checkpoint ${config.policy.init} (policy.init) was built without a value head`,
      );
    }
    return { policy, dataHashes: {} };
  }
  const { tokenizer, corpusHash } = await trainTokenizer(config, provider);
  const policy = await createPolicy(config, tokenizer);
  return { policy, dataHashes: { tokenizerCorpus: corpusHash } };
}

/** Loads the provider and the latest checkpoint of an interrupted run. */
export async function resumeRun(
  config: CurriculumConfig,
  runDir: string,
): Promise<{ provider: EnvProvider; policy: TfjsPolicy; state: TrainerState | undefined }> {
  const provider = envProviderFor(config);
  const checkpoint = latestCheckpoint(runPaths(runDir).checkpoints);
  if (checkpoint === undefined) return { ...(await startRun(config)), state: undefined };
  const policy = await TfjsPolicyClass.load(`${checkpoint}/policy`, {
    name: config.name,
    samplingSeed: config.seed,
    ...backendOption(config.policy.backend),
  });
  return { provider, policy, state: readTrainerState(checkpoint) };
}

/** Episode statistics under standard metric names. */
export function episodeMetrics(episodes: readonly Episode[]): Record<string, number> {
  const turns = episodes.flatMap((e) => e.turns);
  const components = [...new Set(episodes.flatMap((e) => Object.keys(e.rewardComponents)))].sort();
  return {
    'charts/success_rate': mean(episodes.map((e) => (e.won ? 1 : 0))),
    'charts/episodic_return': mean(episodes.map((e) => e.reward ?? e.envReturn)),
    'charts/episode_length': mean(episodes.map((e) => e.turns.length)),
    'charts/format_error_rate':
      turns.length === 0 ? 0 : turns.filter((t) => t.formatError !== null).length / turns.length,
    'charts/invalid_action_rate':
      turns.length === 0 ? 0 : turns.filter((t) => !t.valid).length / turns.length,
    ...Object.fromEntries(
      components.map((c) => [`rewards/${c}`, mean(episodes.map((e) => e.rewardComponents[c] ?? 0))]),
    ),
  };
}

/** A copy of an episode without its token arrays, for the human-readable episode log. */
export function lightEpisode(episode: Episode): Episode {
  return {
    ...episode,
    turns: episode.turns.map((turn) => ({
      ...turn,
      generations: turn.generations.map(({ allowedTokenIds: _allowed, ...g }) => ({
        ...g,
        tokenIds: [],
        lossMask: [],
        logprobs: [],
      })),
    })),
  };
}

export interface EvalOptions {
  splits: readonly string[];
  episodes: number;
  temperature: number;
  seed: number;
}

/** Plays each split with the current weights and summarises it as eval records. */
export async function evaluateSplits(
  config: CurriculumConfig,
  provider: EnvProvider,
  policy: { sampler(): Policy } | Policy,
  options: EvalOptions,
  judging: PlanJudging | undefined,
  where: { step: number; phase: string },
  hooks: RolloutHooks = {},
): Promise<{ records: EvalRecord[]; episodes: Episode[] }> {
  const sampler = 'sampler' in policy ? policy.sampler() : policy;
  const agent = createAgent(
    config,
    sampler,
    agentOptionsFor(config, { provider, temperature: options.temperature }),
  );
  const records: EvalRecord[] = [];
  const episodes: Episode[] = [];
  for (const split of options.splits) {
    const vectorEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), {
      size: Math.min(options.episodes, 32),
    });
    try {
      const report = await evaluate(
        agent,
        { taskSource: provider.tasks, vectorEnv },
        split,
        { limit: options.episodes, seed: options.seed, runId: `eval-${split}-${where.step}` },
        hooks,
      );
      const judgeScore =
        judging !== undefined && config.agent.paradigm === 'adaplan'
          ? await judging.judgePlans(report.episodeRecords)
          : null;
      records.push(
        evalRecordOf(
          report.episodeRecords,
          { step: where.step, phase: where.phase, split, paradigm: report.paradigm },
          judgeScore,
        ),
      );
      episodes.push(...report.episodeRecords);
    } finally {
      await vectorEnv.close();
    }
  }
  return { records, episodes };
}

interface PhaseRunner {
  iterate(rng: Rng, iteration: number): Promise<{ metrics: Record<string, number>; episodes: Episode[] }>;
  close(): Promise<void>;
  /** What the phase carries from one iteration to the next, for mid-phase checkpoints. */
  exportState?(): unknown;
  importState?(state: unknown): void;
}

async function sftRunner(context: RunContext): Promise<PhaseRunner> {
  const { config, provider, policy } = context;
  const sft = config.sft!;
  context.log(
    `sft: playing ${sft.demonstrations} ${config.env.trainSplit} tasks with the oracle for demonstrations`,
  );
  const { demonstrations, won, tasks } = await demonstrationsFor(
    config,
    provider,
    sft.demonstrations,
    policy.sampler(),
  );
  context.log(
    `sft: ${demonstrations.length} demonstration turns from the ${won} of ${tasks} tasks the oracle won`,
  );
  if (demonstrations.length === 0) {
    throw new ConfigError(
      `none of ${tasks} oracle demonstrations of "${config.env.id}" fit the agent's budget; raise env.maxSteps or the context length`,
    );
  }
  const schedule = warmupCosine({
    peak: sft.learningRate,
    warmupSteps: sft.warmupSteps,
    totalSteps: sft.steps,
  });
  return {
    async iterate(rng, iteration) {
      const losses: number[] = [];
      let tokens = 0;
      const first = iteration * sft.stepsPerIteration;
      const last = Math.min(sft.steps, first + sft.stepsPerIteration);
      for (let step = first; step < last; step++) {
        const batch = Array.from(
          { length: sft.batchSize },
          () => demonstrations[rng.int(demonstrations.length)]!,
        );
        const datums = batch.map((demo) =>
          sftDatum(policy.tokenizer, { prompt: demo.messages, response: demo.reply }),
        );
        const result = await sftStep(policy, datums, { learningRate: schedule(step) });
        tokens += result.tokens;
        losses.push(result.loss);
      }
      return {
        metrics: {
          'losses/sft_loss': mean(losses),
          'charts/learning_rate': schedule(last - 1),
          'charts/demonstrations': demonstrations.length,
          'charts/demonstration_tasks_won': won,
          'charts/tokens': tokens,
        },
        episodes: [],
      };
    },
    close: async () => {},
  };
}

/** The training tasks of one iteration: a contiguous run of the split from a random offset. */
async function drawTasks(context: RunContext, rng: Rng, count: number) {
  const { config, provider } = context;
  const total = provider.tasks.count(config.env.trainSplit);
  const span = total === 'unbounded' ? 1_000_000 : Math.max(1, total - count + 1);
  return provider.tasks.tasks(config.env.trainSplit, { offset: rng.int(span), limit: count });
}

/**
 * Expert iteration: rollouts, each group's win replayed without its detours or (hindsight) the
 * goal a lost group reached, rendered as the agent's own prompts (a plan-step agent's with the plan
 * of the replayed commands, written or provided as the stage has it), then SFT on them mixed with
 * the warm start's demonstrations.
 */
async function expertIterationRunner(context: RunContext, phase: Phase): Promise<PhaseRunner> {
  const { config, provider, policy } = context;
  const stage = phase.stage!;
  const settings = stage.expertIteration;
  const vectorEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), {
    size: stage.tasksPerIteration * stage.groupSize,
  });
  const replayEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), { size: 1 });
  const relabelEnv = provider.createEnv(envOptionsFor(config));
  const scorer = createStageScorer(config, stage, provider);
  const demonstrations =
    settings.mix < 1 && config.sft !== undefined
      ? (
          await demonstrationsFor(config, provider, config.sft.demonstrations, policy.sampler())
        ).demonstrations.map((demo) =>
          sftDatum(policy.tokenizer, { prompt: demo.messages, response: demo.reply }),
        )
      : [];
  const iteration = createExpertIteration(
    {
      sftSteps: settings.sftSteps,
      batchSize: settings.batchSize,
      mix: settings.mix,
      learningRate: stage.learningRate,
      seed: config.seed,
    },
    sftStep,
  );
  return {
    async iterate(rng, index) {
      const started = Date.now();
      const agent = createAgent(
        config,
        policy.sampler(),
        agentOptionsFor(config, { stage, provider, temperature: config.agent.temperature }),
      );
      const episodes = await rollout(agent, vectorEnv, {
        envId: provider.envId,
        tasks: await drawTasks(context, rng, stage.tasksPerIteration),
        groupSize: stage.groupSize,
        runId: `${phase.name}-${index}`,
        seed: rng.uint32() >>> 1,
      });
      const rolloutSeconds = (Date.now() - started) / 1000;
      // Rewards are recorded (and the plan stage's judge score reported); what is kept is the wins and the goals reached.
      const { judgeScore } = await scorer.score(episodes);
      const { scripts, ...report } = await relabelEpisodes(episodes, {
        env: relabelEnv,
        ...(settings.hindsight && provider.hindsight !== undefined ? { hindsight: provider.hindsight } : {}),
        rng,
      });
      const replays = await replayScripts(agent, replayEnv, provider.envId, scripts);
      const datums = (source: 'shortcut' | 'hindsight') =>
        replays
          .filter((_, i) => scripts[i]!.source === source)
          .flatMap((replay) => replay.examples)
          .map((example) => sftDatum(policy.tokenizer, example));
      const { metrics } = await iteration.step(policy, {
        kept: { won: datums('shortcut'), hindsight: datums('hindsight') },
        demonstrations,
      });
      const steps = episodes.reduce((sum, e) => sum + e.turns.length, 0);
      return {
        metrics: {
          ...episodeMetrics(episodes),
          ...(judgeScore === null ? {} : { 'charts/plan_judge_score': judgeScore }),
          ...metrics,
          'expert_iteration/groups_won': report.wonGroups,
          'expert_iteration/groups_relabelled': report.hindsightGroups,
          'expert_iteration/groups_unreached': report.unreachedGroups,
          'expert_iteration/goals_unreplayable': report.unreplayableGoals,
          'charts/updated': 1,
          'charts/env_steps': steps,
          'charts/SPS': steps / Math.max(1e-3, rolloutSeconds),
        },
        episodes,
      };
    },
    exportState: () => iteration.exportState(),
    importState: (state) => iteration.importState(state as Parameters<typeof iteration.importState>[0]),
    async close() {
      await vectorEnv.close();
      await replayEnv.close();
      await relabelEnv.close?.();
    },
  };
}

async function stageRunner(context: RunContext, phase: Phase): Promise<PhaseRunner> {
  const { config, provider, policy } = context;
  const stage = phase.stage!;
  if (stage.algorithm === 'expert-iteration') return expertIterationRunner(context, phase);
  const size = stage.tasksPerIteration * stage.groupSize;
  const vectorEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), { size });
  const scorer = createStageScorer(config, stage, provider);
  const update: UpdateStep = createUpdateStep({
    estimator: stage.estimator,
    estimatorArgs: stage.estimator === 'grpo' ? { normalizeStd: stage.normalizeStd } : {},
    loss: 'ppo',
    lossArgs: {
      clipLow: stage.loss.clipLow,
      clipHigh: stage.loss.clipHigh,
      dualClip: stage.loss.dualClip,
      klCoef: stage.loss.klCoef,
      klEstimator: stage.loss.klEstimator,
    },
    aggregation: stage.loss.aggregation,
    epochs: stage.epochs,
    minibatches: stage.minibatches,
    entropyCoef: stage.loss.entropyCoef,
    adam: { learningRate: stage.learningRate, gradClipNorm: stage.gradClipNorm },
    seed: config.seed,
  });
  // A KL term needs the weights the stage started from, frozen.
  const reference = stage.loss.klCoef > 0 ? policy.snapshot() : undefined;
  return {
    async iterate(rng, iteration) {
      const started = Date.now();
      const tasks = await drawTasks(context, rng, stage.tasksPerIteration);
      const agent = createAgent(
        config,
        policy.sampler(),
        agentOptionsFor(config, { stage, provider, temperature: config.agent.temperature }),
      );
      const episodes = await rollout(agent, vectorEnv, {
        envId: provider.envId,
        tasks,
        groupSize: stage.groupSize,
        runId: `${phase.name}-${iteration}`,
        seed: rng.uint32() >>> 1,
      });
      const rolloutSeconds = (Date.now() - started) / 1000;
      const { judgeScore } = await scorer.score(episodes);
      const result = await update(policy, episodes, reference === undefined ? {} : { reference });
      const steps = episodes.reduce((sum, e) => sum + e.turns.length, 0);
      return {
        metrics: {
          ...episodeMetrics(episodes),
          ...(judgeScore === null ? {} : { 'charts/plan_judge_score': judgeScore }),
          ...result.metrics,
          'charts/updated': result.updated ? 1 : 0,
          'charts/env_steps': steps,
          'charts/SPS': steps / Math.max(1e-3, rolloutSeconds),
        },
        episodes,
      };
    },
    async close() {
      await vectorEnv.close();
      reference?.dispose();
    },
  };
}

/** Runs (or continues from `state`) every phase of the curriculum. */
export async function runCurriculum(context: RunContext, resumeFrom?: TrainerState): Promise<EvalRecord[]> {
  const { config, runDir, policy, log } = context;
  const paths = runPaths(runDir);
  const metricsLog = new JsonlWriter(paths.metrics);
  const episodesLog = new JsonlWriter(paths.episodes);
  const evalsLog = new JsonlWriter(paths.evals);
  const logs = { metrics: metricsLog, episodes: episodesLog, evals: evalsLog };
  const phases = curriculumPhases(config);
  const state: TrainerState = resumeFrom ?? {
    format: 1,
    phase: 0,
    iteration: 0,
    globalIteration: 0,
    rngState: createRng(config.seed).state(),
    policyVersion: policy.version,
    logBytes: {},
  };
  if (resumeFrom !== undefined) {
    for (const [name, writer] of Object.entries(logs)) {
      const recorded = resumeFrom.logBytes[name] ?? 0;
      // A log shorter than at the checkpoint lost records; resuming would leave a hole in it.
      if (writer.size() < recorded) {
        throw new CheckpointError(
          `${writer.path} holds ${writer.size()} bytes, fewer than the ${recorded} it held at the checkpoint: the run directory was changed since, so the run cannot be resumed exactly; start a new run`,
        );
      }
      writer.truncateTo(recorded);
    }
    log(
      state.phase >= phases.length
        ? `the run finished at global iteration ${state.globalIteration}; nothing left to train`
        : `resuming at ${phases[state.phase]!.name} iteration ${state.iteration} (global ${state.globalIteration})`,
    );
  }
  const rng = rngFromState(state.rngState, hashString(`${config.seed}`));
  const evalSeed = hashString(`${config.seed}/eval`) >>> 1;
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
      logBytes: Object.fromEntries(Object.entries(logs).map(([name, writer]) => [name, writer.size()])),
    };
    const dir = await saveCheckpoint(paths.checkpoints, saved, policy, config.checkpoint.keep);
    log(`checkpoint saved: ${dir} (global iteration ${state.globalIteration})`);
  };

  // Plans are judged at every evaluation, by the plan stage's judge when there is one.
  const planStage = config.stages.find((s) => s.kind === 'plan');
  const judging = createPlanJudging(
    config,
    context.provider,
    planStage?.kind === 'plan' ? planStage.judge : 'reference',
  );
  const runEval = async (phase: Phase) => {
    const { records } = await evaluateSplits(
      config,
      context.provider,
      policy,
      { ...config.eval, seed: evalSeed },
      judging,
      { step: state.globalIteration, phase: phase.name },
    );
    for (const record of records) evalsLog.append(record);
    lastEvals = records;
    log(
      `eval after ${phase.name} iteration ${state.iteration}: ${records
        .map(
          (r) =>
            `${r.split} ${formatPercent(r.success.rate)} [${formatPercent(r.success.low)}, ${formatPercent(r.success.high)}]`,
        )
        .join(', ')}`,
    );
  };

  for (; state.phase < phases.length; state.phase++, state.iteration = 0) {
    const phase = phases[state.phase]!;
    const runner = phase.kind === 'sft' ? await sftRunner(context) : await stageRunner(context, phase);
    if (state.iteration > 0 && state.phaseState !== undefined) runner.importState?.(state.phaseState);
    const bar = new ProgressBar(
      `[${state.phase + 1}/${phases.length} ${phase.name}]`,
      phase.iterations,
      context.progress,
      Date.now,
      state.iteration,
    );
    try {
      while (state.iteration < phase.iterations) {
        const { metrics, episodes } = await runner.iterate(rng, state.iteration);
        state.iteration++;
        state.globalIteration++;
        metricsLog.append({
          step: state.globalIteration,
          phase: phase.name,
          phaseIndex: state.phase,
          iteration: state.iteration,
          ...metrics,
        });
        for (const episode of episodes.slice(0, config.sampleEpisodes)) {
          episodesLog.append({
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
        bar.update(state.iteration, figures);
        const phaseDone = state.iteration === phase.iterations;
        if (phaseDone || state.iteration % config.eval.every === 0) {
          bar.finish();
          await runEval(phase);
        }
        if (phaseDone) {
          // The end of a phase is saved as the start of the next, which begins from these weights.
          await checkpoint({ phase: state.phase + 1, iteration: 0 });
        } else if (state.globalIteration % config.checkpoint.every === 0) {
          await checkpoint({ phase: state.phase, iteration: state.iteration }, runner.exportState?.());
        }
      }
    } finally {
      bar.finish();
      await runner.close();
    }
  }
  return lastEvals;
}
