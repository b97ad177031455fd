// `pilotrl eval`: a checkpoint (or any OpenAI-compatible model, or a uniformly random policy) on
// held-out splits with AdaPlan or ReAct (of each env, for a mixture), optionally with test-time
// search (best-of-N plans, look-ahead over env copies); success with a 95% interval overall and per
// task type, and the compute spent.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRandomPolicy, type SearchCompute, totalCompute } from '@pilotrl/agent';
import {
  canCopyState,
  type Episode,
  formatPercent,
  InvalidArgumentError,
  PilotRLError,
  type Policy,
  type TrainablePolicy,
} from '@pilotrl/core';
import { createChatClient, type LlmEvent } from '@pilotrl/llm';
import type { BackendChoice } from '@pilotrl/policy-tfjs';
import { type CurriculumConfig, envCurricula } from '../config/curriculum-config';
import {
  checkSearchFitsConfig,
  checkSearchFitsPolicy,
  parseSearchFlags,
  type SearchFlags,
  searchFor,
} from '../config/search-options';
import { diagnosticsLine } from '../evaluation/eval-diagnostics';
import { curriculumJudging, evaluateEnvs } from '../evaluation/evaluate-envs';
import { loadRunPlugins } from '../plugins/load';
import { policyBackendOf } from '../policies/registry';
import { JsonlWriter } from '../run/jsonl';
import { readRunConfig } from '../run/run-dir';
import { type RunEnv, runEnvsFor } from '../run/run-envs';
import { loadRunPolicy } from '../run/run-policy';
import { type EvalRecord, evalRecordOf } from '../run/run-records';
import { evalSeedOf } from '../training/curriculum';
import { turnZeroNotice } from '../training/turn-zero-notice';
import type { CliIo } from './io';
import { resolveConfig, withBackend } from './train';

export interface EvalOptions {
  checkpoint?: string;
  baseUrl?: string;
  model?: string;
  /** A uniformly random policy instead of a model, every task played once per seed 1..random. */
  random?: number;
  apiKeyEnv?: string;
  config?: string;
  paradigm?: 'adaplan' | 'react';
  splits?: string[];
  episodes?: number;
  env?: string;
  /** The tfjs backend for a --checkpoint policy (default: the config's policy.backend). */
  backend?: 'auto' | BackendChoice;
  /** A new JSONL file that receives each finished episode as it finishes. */
  out?: string;
  /** For --base-url: seconds one request may take, retries after the first attempt, requests in flight. */
  timeoutSeconds?: number;
  maxRetries?: number;
  maxConcurrency?: number;
  /** For --base-url: the server's extensions (default `vllm`: token ids and exact choices from vLLM, SGLang, pilotrl serve). */
  dialect?: 'vllm' | 'llama-cpp' | 'openai';
  /** Test-time search and its budget and scorer (see `config/search-options.ts`). */
  search?: SearchFlags['search'];
  n?: number;
  width?: number;
  depth?: number;
  scorer?: SearchFlags['scorer'];
}

/** An eval record with the compute its episodes spent. */
export type EvalRow = EvalRecord & { compute?: SearchCompute };

/** The policy directory inside a checkpoint, a run directory's latest checkpoint, or `dir` itself. */
export function policyDir(dir: string): string {
  if (existsSync(join(dir, 'policy'))) return join(dir, 'policy');
  if (existsSync(join(dir, 'checkpoints', 'latest'))) {
    return join(
      dir,
      'checkpoints',
      readFileSync(join(dir, 'checkpoints', 'latest'), 'utf8').trim(),
      'policy',
    );
  }
  return dir;
}

/** The run directory a checkpoint belongs to: itself, or up to three levels above (`<run>/checkpoints/iter-N/policy`). */
export function runDirOf(checkpoint: string): string | undefined {
  const candidates = [0, 1, 2, 3].map((up) => resolve(checkpoint, ...new Array<string>(up).fill('..')));
  return candidates.find(
    (dir) => existsSync(join(dir, 'config.json')) && existsSync(join(dir, 'manifest.json')),
  );
}

/** The run or preset config, with the paradigm, env and eval settings the command line overrides. */
async function evalConfig(options: EvalOptions): Promise<CurriculumConfig> {
  const runDir = options.checkpoint === undefined ? undefined : runDirOf(options.checkpoint);
  let base: CurriculumConfig;
  if (options.config !== undefined) base = await resolveConfig(options.config);
  else if (runDir !== undefined) {
    await loadRunPlugins(runDir);
    base = readRunConfig(runDir);
  } else base = await resolveConfig('quick');
  if (options.env !== undefined) base = onlyEnv(base, options.env);
  return {
    ...base,
    // A remote model has a far larger context than our small policies.
    policy: options.baseUrl === undefined ? base.policy : { ...base.policy, contextLength: 8192 },
    agent: { ...base.agent, paradigm: options.paradigm ?? base.agent.paradigm },
    eval: {
      ...base.eval,
      ...(options.splits === undefined ? {} : { splits: options.splits }),
      ...(options.episodes === undefined ? {} : { episodes: options.episodes }),
    },
  };
}

/** `config` on the env `id` alone: a mixture's own entry for it (with its agent), or `id` with no options. */
function onlyEnv(config: CurriculumConfig, id: string): CurriculumConfig {
  const entries = envCurricula(config);
  const entry = entries.find((env) => env.id === id)?.config;
  if (entry !== undefined) return entry;
  return { ...config, env: { ...entries[0]!.config.env, id, options: {} } };
}

/** Per episode: tokens generated, tokens scored, env steps (copies' included) and copies made. */
function computeColumns(compute: SearchCompute | undefined, episodes: number): string {
  if (compute === undefined) return '';
  const per = (value: number) => (episodes === 0 ? 0 : value / episodes).toFixed(1);
  return `  ${per(compute.generatedTokens).padStart(10)}  ${per(compute.scoredTokens).padStart(9)}  ${per(compute.envSteps).padStart(8)}  ${per(compute.copies).padStart(8)}`;
}

export function formatEvalTable(records: readonly EvalRow[]): string {
  const compute = records.some((r) => r.compute !== undefined)
    ? '  gen-tok/ep  scored/ep  steps/ep  copies/ep'
    : '';
  const lines = [`split          paradigm  success  [95% CI]            n    steps  format-err${compute}`];
  for (const r of records) {
    if (r.env !== undefined && r.env !== records[records.indexOf(r) - 1]?.env) lines.push(`env ${r.env}`);
    lines.push(
      `${r.split.padEnd(14)} ${r.paradigm.padEnd(9)} ${formatPercent(r.success.rate).padStart(7)}  [${formatPercent(r.success.low)}, ${formatPercent(r.success.high)}]`.padEnd(
        56,
      ) +
        `${String(r.success.total).padStart(4)}  ${r.meanSteps.toFixed(1).padStart(5)}  ${formatPercent(r.formatErrorRate).padStart(9)}` +
        computeColumns(r.compute, r.success.total),
    );
    for (const [type, p] of Object.entries(r.byTaskType)) {
      lines.push(
        `  ${type.padEnd(34)} ${formatPercent(p.rate).padStart(7)}  [${formatPercent(p.low)}, ${formatPercent(p.high)}]  n=${p.total}`,
      );
    }
    if (r.diagnostics !== undefined) lines.push(`  ${diagnosticsLine(r.diagnostics)}`);
    const oracle = r.oraclePlan;
    if (oracle !== undefined) {
      lines.push(
        `  with the oracle's plan${' '.repeat(12)} ${formatPercent(oracle.success.rate).padStart(7)}  [${formatPercent(oracle.success.low)}, ${formatPercent(oracle.success.high)}]`.padEnd(
          56,
        ) +
          `${String(oracle.success.total).padStart(4)}  ${oracle.meanSteps.toFixed(1).padStart(5)}  ${formatPercent(oracle.formatErrorRate).padStart(9)}`,
        `    ${diagnosticsLine(oracle.diagnostics)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export async function evalCommand(options: EvalOptions, io: CliIo): Promise<EvalRow[]> {
  // The search options are checked before any episode runs: the flags and the config before the
  // model loads, its value head once it has.
  const search = parseSearchFlags(options);
  const config = await evalConfig(options);
  if (search !== undefined) checkSearchFitsConfig(search, config);
  const envs = runEnvsFor(config).map((env) => ({
    ...env,
    judging: curriculumJudging(env.config, env.provider),
  }));
  if (search?.kind === 'lookahead') for (const env of envs) await checkCopiesState(env);
  if (options.random !== undefined) return randomEval(options, options.random, config, envs, io);
  let policy: Policy | TrainablePolicy;
  /** Lets the policy go when the evaluation ends (its weights, a Tinker session's heartbeat). */
  let release = () => {};
  if (options.baseUrl !== undefined) {
    if (options.model === undefined)
      throw new InvalidArgumentError('pilotrl eval --base-url needs --model <name>');
    policy = createChatClient(
      {
        baseUrl: options.baseUrl,
        model: options.model,
        ...(options.apiKeyEnv === undefined ? {} : { apiKeyEnv: options.apiKeyEnv }),
        ...(options.timeoutSeconds === undefined ? {} : { timeoutMs: options.timeoutSeconds * 1000 }),
        ...(options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency }),
        ...(options.maxRetries === undefined ? {} : { retry: { maxRetries: options.maxRetries } }),
        dialect: options.dialect ?? 'vllm',
      },
      {
        onEvent: (event) => {
          const line = describeRetry(event);
          if (line !== undefined) io.stderr.write(`pilotrl eval: retrying ${line}\n`);
        },
      },
    );
  } else if (options.checkpoint !== undefined) {
    const checkpointConfig = withBackend(config, options.backend);
    const backend = policyBackendOf(checkpointConfig.policy);
    const { line } = await backend.start(checkpointConfig.policy, 'evaluate');
    io.stderr.write(`pilotrl: ${line}\n`);
    const loaded = await loadRunPolicy(checkpointConfig, policyDir(options.checkpoint));
    policy = loaded;
    release = () => loaded.dispose();
  } else {
    throw new InvalidArgumentError(
      'pilotrl eval needs --checkpoint <dir>, --base-url <url> --model <name>, or --random <seeds>',
    );
  }
  if (search !== undefined) checkSearchFitsPolicy(search, policy);
  const session = evalSession(options, config, envs, io);
  try {
    const { records } = await session.play(policy, search);
    const rows = withCompute(records, session.finished, envs);
    io.stdout.write(formatEvalTable(rows));
    return rows;
  } finally {
    session.end();
    release();
  }
}

type JudgedEnv = RunEnv & { judging: ReturnType<typeof curriculumJudging> };

/**
 * The episodes of one evaluation, kept as they finish (and appended to `--out`); `play` runs the
 * splits with a policy, and on an interrupt or a failure the episodes finished so far are reported.
 */
function evalSession(options: EvalOptions, config: CurriculumConfig, envs: readonly JudgedEnv[], io: CliIo) {
  const finished: Episode[] = [];
  const out = options.out === undefined ? undefined : newEpisodeFile(options.out);
  const keep = (episodes: readonly Episode[]) => {
    finished.push(...episodes);
    for (const episode of episodes) out?.append(episode);
  };
  const rounds = options.random ?? 1;
  const planned = config.eval.episodes * config.eval.splits.length * envs.length * rounds;
  const reportFinished = () => {
    io.stdout.write(formatEvalTable(partialRecords(finished, envs, config.eval.splits)));
    const saved = options.out === undefined ? '' : `; they are in ${options.out}`;
    return `${finished.length} of ${planned} episodes finished (their table is on stdout)${saved}; ${planned - finished.length} missing`;
  };
  const interrupt = () => {
    io.stderr.write(`pilotrl eval: interrupted; ${reportFinished()}\n`);
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  return {
    finished,
    /** `round` numbers the episodes' ids (`eval-<split>-<round>/…`), apart for each random seed. */
    async play(policy: Policy | TrainablePolicy, search?: ReturnType<typeof parseSearchFlags>, round = 0) {
      try {
        return await evaluateEnvs(
          envs,
          policy,
          {
            ...config.eval,
            // A model plays with the seed of the run's own evaluations: sampled (eval.temperature
            // above 0), it draws as they did, and another `seed` in the config draws anew. Random
            // play draws by the random policy's own seeds, 1..N, its rollouts seeded 0.
            seed: options.random === undefined ? evalSeedOf(config) : 0,
            ...(search === undefined ? {} : { search: (env) => searchFor(search, policy, env) }),
          },
          { step: round, phase: 'eval' },
          {
            onEpisodes: keep,
            ...turnZeroNotice(
              (line) => io.stderr.write(`pilotrl eval: ${line}\n`),
              'eval',
              (envId) => envs.find((env) => env.provider.envId === envId)?.config,
            ),
          },
        );
      } catch (error) {
        if (!PilotRLError.isInstance(error)) throw error;
        throw new PilotRLError(`${(error as Error).message.replace(/\.$/, '')}; ${reportFinished()}`, {
          cause: error,
        });
      }
    },
    end: () => process.removeListener('SIGINT', interrupt),
  };
}

/**
 * The chance level: a uniformly random policy (seeds 1..`seeds`) plays every task of the splits
 * once per seed, and each split's episodes of all seeds make one row.
 */
async function randomEval(
  options: EvalOptions,
  seeds: number,
  config: CurriculumConfig,
  envs: readonly JudgedEnv[],
  io: CliIo,
): Promise<EvalRow[]> {
  const conflicting = (['checkpoint', 'baseUrl', 'search'] as const).filter(
    (key) => options[key] !== undefined && options[key] !== 'none',
  );
  if (conflicting.length > 0) {
    const flag = { checkpoint: '--checkpoint', baseUrl: '--base-url', search: '--search' };
    throw new InvalidArgumentError(
      `pilotrl eval --random plays a random policy, not a model: drop ${conflicting.map((key) => flag[key]).join(' and ')}`,
    );
  }
  const session = evalSession(options, config, envs, io);
  try {
    for (let seed = 1; seed <= seeds; seed++) {
      await session.play(createRandomPolicy({ seed, name: 'random', tokens: 'none' }), undefined, seed);
    }
  } finally {
    session.end();
  }
  const rows = partialRecords(session.finished, envs, config.eval.splits);
  io.stdout.write(formatEvalTable(rows));
  return rows;
}

/** Look-ahead plays candidates on copies of the env: an env that cannot copy itself is refused up front. */
async function checkCopiesState(env: RunEnv): Promise<void> {
  const probe = env.createEnv();
  const copyable = canCopyState(probe);
  await probe.close?.();
  if (!copyable) {
    throw new InvalidArgumentError(
      `--search lookahead plays candidates on copies of the env, but env "${env.id}" cannot copy its state; use --search best-of-n, or an env with state copies (alfworld, maze, wordle, the testkit envs)`,
    );
  }
}

/** Each record with the compute of its episodes (those of its env and split). */
function withCompute(
  records: readonly EvalRecord[],
  episodes: readonly Episode[],
  envs: readonly RunEnv[],
): EvalRow[] {
  return records.map((record) => {
    const envId = envs.find((env) => env.id === record.env)?.provider.envId ?? envs[0]!.provider.envId;
    const played = episodes.filter((episode) => episode.split === record.split && episode.envId === envId);
    return { ...record, compute: totalCompute(played) };
  });
}

/** Eval records of the episodes that finished, per env and split in the order asked for. */
function partialRecords(
  episodes: readonly Episode[],
  envs: readonly RunEnv[],
  splits: readonly string[],
): EvalRow[] {
  return envs.flatMap((env) =>
    splits.flatMap((split) => {
      const played = episodes.filter(
        (episode) => episode.split === split && episode.envId === env.provider.envId,
      );
      if (played.length === 0) return [];
      const where = { step: 0, phase: 'eval', split, paradigm: played[0]!.paradigm };
      const record = evalRecordOf(played, envs.length > 1 ? { ...where, env: env.id } : where, null);
      return [{ ...record, compute: totalCompute(played) }];
    }),
  );
}

/** A writer for a file that must not exist yet, so an earlier eval's episodes are never mixed in. */
function newEpisodeFile(path: string): JsonlWriter {
  if (existsSync(path)) {
    throw new InvalidArgumentError(`--out ${path} already exists; give a new file for the episodes`);
  }
  return new JsonlWriter(path);
}

/** A retry of a remote model's request, as one line. */
function describeRetry(event: LlmEvent): string | undefined {
  if (event.type !== 'retry') return undefined;
  const status = event.status === undefined ? '' : ` ${event.status}`;
  return `${event.endpoint}: ${event.reason}${status}; attempt ${event.attempt + 1} in ${(event.delayMs / 1000).toFixed(1)} s`;
}
