// `pilotrl compute-curve`: trains the curriculum once per seed (resuming an interrupted run,
// skipping a finished one), takes the greedy evaluation at the end of each phase as the training
// side of the curve, evaluates test-time searches from the chosen checkpoints as the search side
// (each point measured once and kept, so an interrupted curve resumes), and writes the table and
// plot as the compute-curve section of the results page.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { totalCompute } from '@pilotrl/agent';
import { ConfigError, type Episode, parseOrThrow } from '@pilotrl/core';
import {
  checkSearchFitsConfig,
  checkSearchFitsPolicy,
  type SearchChoice,
  searchChoiceSchema,
  searchFor,
} from '../config/search-options';
import {
  appendCurvePoint,
  type CurvePoint,
  computeCurveSection,
  curveConfig,
  readCurvePoints,
  trainingPoints,
  writeResultsSection,
} from '../evaluation/compute-curve';
import { curriculumJudging, evaluateEnvs } from '../evaluation/evaluate-envs';
import { describeScale } from '../evaluation/reproduce';
import { checkpointDirAt, runFinished } from '../run/checkpoint';
import { runPaths } from '../run/run-dir';
import { runEnvsFor } from '../run/run-envs';
import { loadRunPolicy } from '../run/run-policy';
import { evalSeedOf } from '../training/curriculum';
import { curriculumPhases } from '../training/phase-plan';
import type { CliIo } from './io';
import { resolveConfig, train } from './train';

export interface ComputeCurveOptions {
  config: string;
  seeds: number[];
  split: string;
  episodes: number;
  /** Best-of-N searches, evaluated from the end of each phase of `bestOfFrom`. */
  bestOf: SearchChoice[];
  /** Phases (by name, or `last`) whose end best-of-N searches from. */
  bestOfFrom: string[];
  /** Look-ahead searches, evaluated from the end of each phase of `lookaheadFrom`. */
  lookahead: SearchChoice[];
  lookaheadFrom: string[];
  runsDir: string;
  results: string;
}

/**
 * `--best-of 2,4,8:judge` or `--lookahead 4x1,4x2:rollout`: budgets, each optionally with its own
 * `:scorer`, else the list's last one's (best-of-n: judge; lookahead: rollout).
 */
export function parseSearchList(kind: SearchChoice['kind'], value: string): SearchChoice[] {
  const flag = kind === 'best-of-n' ? '--best-of' : '--lookahead';
  const entries = value.split(',').map((entry) => entry.trim().split(':'));
  const fallback = entries.at(-1)?.[1] ?? (kind === 'best-of-n' ? 'judge' : 'rollout');
  return entries.map(([budget = '', scorer = fallback]) => {
    if (kind === 'best-of-n') {
      return parseOrThrow(searchChoiceSchema, { kind, n: Number(budget), scorer }, `${flag} ${budget}`);
    }
    const match = /^(\d+)x(\d+)$/.exec(budget);
    if (match === null) {
      throw new ConfigError(`${flag} ${budget}: give width x depth, e.g. 4x2`);
    }
    return parseOrThrow(
      searchChoiceSchema,
      { kind, width: Number(match[1]), depth: Number(match[2]), scorer },
      `${flag} ${budget}`,
    );
  });
}

/** How a search is named in the table: `best-of-4 (judge)`, `lookahead w4 d2 (rollout)`. */
export function searchLabel(search: SearchChoice): string {
  return search.kind === 'best-of-n'
    ? `best-of-${search.n} (${search.scorer})`
    : `lookahead w${search.width} d${search.depth} (${search.scorer})`;
}

export async function computeCurve(options: ComputeCurveOptions, io: CliIo): Promise<CurvePoint[]> {
  const base = await resolveConfig(options.config);
  const log = (line: string) => io.stderr.write(`pilotrl compute-curve: ${line}\n`);
  const phaseNames = curriculumPhases(base).map((phase) => phase.name);
  const plan = [
    { flag: '--best-of-from', searches: options.bestOf, from: options.bestOfFrom },
    { flag: '--lookahead-from', searches: options.lookahead, from: options.lookaheadFrom },
  ];
  for (const { flag, searches, from } of plan) {
    for (const phase of from) {
      if (phase !== 'last' && !phaseNames.includes(phase)) {
        throw new ConfigError(
          `${flag} ${phase}: curriculum "${base.name}" has no phase of that name (phases: ${phaseNames.join(', ')}; or last)`,
        );
      }
    }
    for (const search of searches) checkSearchFitsConfig(search, curveConfig(base, 1, options.split, 1));
  }

  mkdirSync(options.runsDir, { recursive: true });
  const pointsFile = join(options.runsDir, 'search-points.jsonl');
  const points: CurvePoint[] = [];
  for (const seed of options.seeds) {
    const config = curveConfig(base, seed, options.split, options.episodes);
    const runDir = resolve(options.runsDir, `train-seed${seed}`);
    if (runFinished(runDir, curriculumPhases(config).length)) {
      log(`seed ${seed} already trained in ${runDir}`);
    } else if (existsSync(runPaths(runDir).manifest)) {
      await train({ resume: runDir, report: true }, io, ['train', '--resume', runDir]);
    } else {
      await train({ config, out: runDir, report: true }, io, ['compute-curve', String(seed)]);
    }
    const trained = trainingPoints(runDir, seed);
    points.push(...trained);

    const measured = readCurvePoints(pointsFile).filter((p) => p.seed === seed);
    for (const { searches, from: phases } of plan) {
      for (const from of phases) {
        const start = from === 'last' ? trained.at(-1) : trained.find((p) => p.phase === from);
        if (start === undefined)
          throw new ConfigError(`seed ${seed}: no evaluation at the end of ${from} in ${runDir}`);
        for (const search of searches) {
          const label = searchLabel(search);
          const known = measured.find((p) => p.phaseIndex === start.phaseIndex && p.search === label);
          if (known !== undefined) {
            points.push(known);
            continue;
          }
          log(`seed ${seed}: ${label} from the end of ${start.phase}`);
          const point = await searchPoint(config, checkpointOf(runDir, start), start, search);
          appendCurvePoint(pointsFile, point);
          points.push(point);
        }
      }
    }
  }

  const command = [
    'pnpm pilotrl compute-curve',
    `--config ${options.config}`,
    `--seeds ${options.seeds.join(',')}`,
    `--split ${options.split}`,
    `--episodes ${options.episodes}`,
    ...searchFlags(options),
    `--runs-dir ${options.runsDir}`,
    `--results ${options.results}`,
  ].join(' ');
  const plotName = 'compute-curve.png';
  const { markdown, png } = computeCurveSection(points, {
    split: options.split,
    scale: describeScale({
      ...curveConfig(base, options.seeds[0]!, options.split, options.episodes),
      name: base.name,
    }),
    commands: [command],
    plotPath: `results/${plotName}`,
  });
  const plotDir = join(dirname(options.results), 'results');
  mkdirSync(plotDir, { recursive: true });
  writeFileSync(join(plotDir, plotName), png);
  writeResultsSection(options.results, 'compute-curve', markdown);
  io.stdout.write(`${options.results}\n`);
  return points;
}

/** The command-line flags that ask for the searches, and where from. */
function searchFlags(options: ComputeCurveOptions): string[] {
  const budget = (s: SearchChoice) => (s.kind === 'best-of-n' ? `${s.n}` : `${s.width}x${s.depth}`);
  const flags = (name: string, searches: readonly SearchChoice[], from: readonly string[]) =>
    searches.length === 0
      ? []
      : [
          `--${name} ${searches.map((s) => `${budget(s)}:${s.scorer}`).join(',')}`,
          `--${name}-from ${from.join(',')}`,
        ];
  return [
    ...flags('best-of', options.bestOf, options.bestOfFrom),
    ...flags('lookahead', options.lookahead, options.lookaheadFrom),
  ];
}

/** The checkpoint written at the end of the phase `point` was evaluated after. */
function checkpointOf(runDir: string, point: CurvePoint): string {
  const dir = checkpointDirAt(runPaths(runDir).checkpoints, point.step);
  if (!existsSync(join(dir, 'trainer.json'))) {
    throw new ConfigError(
      `${runDir} keeps no checkpoint at the end of ${point.phase} (${dir}); it was pruned or removed, so train the seed again`,
    );
  }
  return dir;
}

/** One search evaluated from a checkpoint, with the same tasks and seed as the run's own evaluations. */
async function searchPoint(
  config: ReturnType<typeof curveConfig>,
  checkpointDir: string,
  start: CurvePoint,
  search: SearchChoice,
): Promise<CurvePoint> {
  const policy = await loadRunPolicy(config, join(checkpointDir, 'policy'));
  try {
    checkSearchFitsPolicy(search, policy);
    const envs = runEnvsFor(config).map((env) => ({
      ...env,
      judging: curriculumJudging(env.config, env.provider),
    }));
    const episodes: Episode[] = [];
    const { records } = await evaluateEnvs(
      envs,
      policy,
      {
        ...config.eval,
        seed: evalSeedOf(config),
        search: (env) => searchFor(search, policy, env),
      },
      { step: 0, phase: 'compute-curve' },
      {
        onEpisodes: (finished) => {
          episodes.push(...finished);
        },
      },
    );
    const record = records[0]!;
    const compute = totalCompute(episodes);
    return {
      seed: start.seed,
      phase: start.phase,
      phaseIndex: start.phaseIndex,
      step: start.step,
      search: searchLabel(search),
      trainCpuSeconds: start.trainCpuSeconds,
      evalCpuSeconds: record.cpuSeconds ?? 0,
      successes: record.success.successes,
      episodes: record.success.total,
      generatedTokens: compute.generatedTokens,
      scoredTokens: compute.scoredTokens,
      envSteps: compute.envSteps,
    };
  } finally {
    policy.dispose();
  }
}
