// `pilotrl reproduce`: trains every variant of the paper's comparison for every seed (resuming
// runs that were interrupted, skipping finished ones) and writes the results page.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { latestCheckpoint, readTrainerState } from '../checkpoint';
import { curriculumPhases } from '../curriculum';
import {
  describeScale,
  resultsPage,
  runResult,
  VARIANTS,
  type Variant,
  type VariantResult,
  variantConfig,
  writeResultsPage,
} from '../reproduce';
import { runPaths } from '../run-dir';
import type { CliIo } from './io';
import { resolveConfig, train } from './train';

export interface ReproduceOptions {
  config: string;
  seeds: number[];
  variants: Variant[];
  runsDir: string;
  results: string;
}

function finished(runDir: string, phases: number): boolean {
  const checkpoint = existsSync(runPaths(runDir).manifest)
    ? latestCheckpoint(runPaths(runDir).checkpoints)
    : undefined;
  return checkpoint !== undefined && readTrainerState(checkpoint).phase >= phases;
}

export async function reproduce(options: ReproduceOptions, io: CliIo): Promise<VariantResult[]> {
  const base = resolveConfig(options.config);
  const results: VariantResult[] = [];
  for (const seed of options.seeds) {
    for (const variant of options.variants) {
      const config = variantConfig(base, variant, seed);
      const runDir = resolve(options.runsDir, `${variant}-seed${seed}`);
      if (finished(runDir, curriculumPhases(config).length)) {
        io.stderr.write(`pilotrl reproduce: ${variant} seed ${seed} already finished in ${runDir}\n`);
      } else if (existsSync(runPaths(runDir).manifest)) {
        await train({ resume: runDir, report: true }, io, ['train', '--resume', runDir]);
      } else {
        await train({ config, out: runDir, report: true }, io, ['reproduce', variant, String(seed)]);
      }
      results.push({
        ...runResult(variant, seed, runDir),
        runDir: join(options.runsDir, `${variant}-seed${seed}`),
      });
    }
  }
  const command = [
    'pnpm pilotrl reproduce',
    `--config ${options.config}`,
    `--seeds ${options.seeds.join(',')}`,
    ...(options.variants.length === VARIANTS.length ? [] : [`--variants ${options.variants.join(',')}`]),
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
