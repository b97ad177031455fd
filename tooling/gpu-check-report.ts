// The last step of tooling/gpu-check.sh: the policy bench's figures on the GPU against those on the
// CPU from the same run (each written by `bench --json`), as one table of tokens per second and
// their ratio.
//   node --import tsx tooling/gpu-check-report.ts <cpu.json> <gpu.json>
import { readFileSync } from 'node:fs';

/** The figures `pnpm --filter @pilotrl/policy-tfjs bench --json=<file>` writes for one backend. */
interface BenchFigures {
  trainTokens: number;
  decodeRate: number;
  choiceRate: number;
}

type BenchFile = { sizes: Record<string, Record<string, BenchFigures>> };

const FIGURES: readonly { key: keyof BenchFigures; label: string }[] = [
  { key: 'trainTokens', label: 'training tokens/s' },
  { key: 'decodeRate', label: 'decode tokens/s (KV cache, batch 32)' },
  { key: 'choiceRate', label: 'constrained choice requests/s' },
];

/** The one backend's figures by size in the bench file at `path`, checked. */
export function readBenchFigures(path: string, backend: string): Map<string, BenchFigures> {
  let file: BenchFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as BenchFile;
  } catch (cause) {
    throw new Error(`${path}: not a bench figures file (${(cause as Error).message})`);
  }
  const figures = new Map<string, BenchFigures>();
  for (const [size, byBackend] of Object.entries(file?.sizes ?? {})) {
    const found = byBackend?.[backend];
    for (const { key } of FIGURES) {
      if (!(typeof found?.[key] === 'number' && Number.isFinite(found[key]) && found[key] > 0)) {
        throw new Error(`${path}: size ${size} has no positive ${key} for ${backend}`);
      }
    }
    figures.set(size, found!);
  }
  if (figures.size === 0) throw new Error(`${path}: no bench size was measured`);
  return figures;
}

/** The table of GPU against CPU figures, one row per size and figure. */
export function gpuAgainstCpu(cpu: Map<string, BenchFigures>, gpu: Map<string, BenchFigures>): string {
  const rows = [['size', 'figure', 'CPU (tensorflow)', 'GPU (tensorflow-gpu)', 'GPU / CPU']];
  for (const [size, onGpu] of gpu) {
    const onCpu = cpu.get(size);
    if (onCpu === undefined) throw new Error(`size ${size} was measured on the GPU but not on the CPU`);
    for (const { key, label } of FIGURES) {
      rows.push([
        size,
        label,
        onCpu[key].toFixed(0),
        onGpu[key].toFixed(0),
        `${(onGpu[key] / onCpu[key]).toFixed(2)}x`,
      ]);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

if (process.argv[1]?.endsWith('gpu-check-report.ts')) {
  const [cpuPath, gpuPath] = process.argv.slice(2);
  if (cpuPath === undefined || gpuPath === undefined) {
    console.error('usage: node --import tsx tooling/gpu-check-report.ts <cpu.json> <gpu.json>');
    process.exit(2);
  }
  console.log('## The policy bench: GPU against CPU, same run\n');
  console.log(
    gpuAgainstCpu(readBenchFigures(cpuPath, 'tensorflow'), readBenchFigures(gpuPath, 'tensorflow-gpu')),
  );
}
