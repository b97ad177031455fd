// `pilotrl reproduce`: trains every variant of the paper's comparison for every seed (resuming
// runs that were interrupted, skipping finished ones) and writes the results page. The SFT-only
// run of each paradigm and seed is the warm start of that paradigm's RL variants: it is trained
// first and each RL variant starts from its end (a fork), so the shared SFT phase runs once.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEFAULT_VARIANTS,
  describeScale,
  resultsPage,
  runResult,
  type Variant,
  type VariantResult,
  variantConfig,
  warmStartOf,
  writeResultsPage,
} from '../evaluation/reproduce';
import { latestCheckpoint, runFinished } from '../run/checkpoint';
import { forkRun } from '../run/fork';
import { runPaths } from '../run/run-dir';
import { curriculumPhases } from '../training/phase-plan';
import type { CliIo } from './io';
import { resolveConfig, train } from './train';

export interface ReproduceOptions {
  config: string;
  seeds: number[];
  variants: Variant[];
  runsDir: string;
  results: string;
}

export async function reproduce(options: ReproduceOptions, io: CliIo): Promise<VariantResult[]> {
  const base = await resolveConfig(options.config);
  // Warm starts before the variants that fork from them; results keep the requested order.
  const order = [...options.variants].sort(
    (a, b) => Number(warmStartOf(a) !== undefined) - Number(warmStartOf(b) !== undefined),
  );
  const runDirOf = (variant: Variant, seed: number) => resolve(options.runsDir, `${variant}-seed${seed}`);
  for (const seed of options.seeds) {
    for (const variant of order) {
      const config = variantConfig(base, variant, seed);
      const runDir = runDirOf(variant, seed);
      const warmStart = warmStartOf(variant);
      if (runFinished(runDir, curriculumPhases(config).length)) {
        io.stderr.write(`pilotrl reproduce: ${variant} seed ${seed} already finished in ${runDir}\n`);
        continue;
      }
      // A variant not started yet, or stopped before its first checkpoint, starts from its warm start.
      const started =
        existsSync(runPaths(runDir).manifest) && latestCheckpoint(runPaths(runDir).checkpoints) !== undefined;
      if (!started && warmStart !== undefined) {
        const source = runDirOf(warmStart, seed);
        if (options.variants.includes(warmStart) && existsSync(runPaths(source).manifest)) {
          io.stderr.write(`pilotrl reproduce: ${variant} seed ${seed} starts from the end of ${source}\n`);
          forkRun(source, runDir, config, ['pilotrl', 'reproduce', variant, String(seed)]);
        }
      }
      if (existsSync(runPaths(runDir).manifest)) {
        await train({ resume: runDir, report: true }, io, ['train', '--resume', runDir]);
      } else {
        await train({ config, out: runDir, report: true }, io, ['reproduce', variant, String(seed)]);
      }
    }
  }
  const results: VariantResult[] = options.seeds.flatMap((seed) =>
    options.variants.map((variant) => ({
      ...runResult(variant, seed, runDirOf(variant, seed)),
      runDir: join(options.runsDir, `${variant}-seed${seed}`),
    })),
  );
  const command = [
    'pnpm pilotrl reproduce',
    `--config ${options.config}`,
    `--seeds ${options.seeds.join(',')}`,
    ...(options.variants.join(',') === DEFAULT_VARIANTS.join(',')
      ? []
      : [`--variants ${options.variants.join(',')}`]),
    `--runs-dir ${options.runsDir}`,
    `--results ${options.results}`,
  ].join(' ');
  const page = resultsPage(
    results,
    [
      command,
      ...results.map((r) => `pnpm pilotrl report ${join(options.runsDir, `${r.variant}-seed${r.seed}`)}`),
    ],
    resolve(options.results, '..'),
    describeScale(base),
  );
  writeResultsPage(page, options.results);
  io.stdout.write(`${options.results}\n`);
  return results;
}
