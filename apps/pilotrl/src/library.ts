// The curriculum as library calls: what `pilotrl train`, `train --resume` and `eval` do, for code
// that composes its own pipeline. A config is an object (validated here, defaults filled in), a
// file path or a preset name; what the commands print goes to `log`, one line per call.
import { Readable } from 'node:stream';
import { type EvalOptions, type EvalRow, evalCommand } from './commands/eval';
import type { CliIo } from './commands/io';
import { type TrainOptions, train as trainCommand } from './commands/train';
import { type CurriculumConfig, type CurriculumConfigInput, parseConfig } from './config/curriculum-config';
import { loadConfigPlugins } from './plugins/load';
import { runPaths } from './run/run-dir';
import { type EvalRecord, readEvals } from './run/run-records';

export interface RunOutput {
  /** Receives each line the run prints (progress, evaluations, warnings); default: nowhere. */
  log?: (line: string) => void;
}

export interface TrainCallOptions extends RunOutput {
  /** The run directory (default: runs/<name>-<timestamp>); it must not hold a run yet. */
  out?: string;
  /** Overrides the config's `policy.backend`. */
  backend?: TrainOptions['backend'];
  /** Write the HTML report when training ends (default false). */
  report?: boolean;
}

export interface TrainResult {
  runDir: string;
  /** Every held-out evaluation the run has recorded (its evals.jsonl), in the order they ran. */
  evals: EvalRecord[];
}

/** An io for a command that prints to `log` in lines and reads nothing. */
function logIo(log: (line: string) => void = () => {}): CliIo {
  let pending = '';
  const write = (text: string) => {
    const lines = (pending + text).split(/\r?\n|\r/);
    pending = lines.pop()!;
    for (const line of lines) if (line.trim() !== '') log(line);
    return true;
  };
  return { stdin: Readable.from([]), stdout: { write }, stderr: { write } };
}

/** A config object validated with its plug-ins loaded (paths relative to the working directory). */
async function validated(config: CurriculumConfig | CurriculumConfigInput): Promise<CurriculumConfig> {
  return parseConfig(await loadConfigPlugins(config, process.cwd()), 'the config passed to train');
}

/**
 * Trains a fresh run: SFT, then the config's stages, evaluating as the config says, into a new
 * run directory that `resume` continues after an interruption.
 */
export async function train(
  config: CurriculumConfig | CurriculumConfigInput | string,
  options: TrainCallOptions = {},
): Promise<TrainResult> {
  const { log, out, backend, report = false } = options;
  const { runDir } = await trainCommand(
    {
      config: typeof config === 'string' ? config : await validated(config),
      report,
      ...(out === undefined ? {} : { out }),
      ...(backend === undefined ? {} : { backend }),
    },
    logIo(log),
    ['train'],
  );
  return { runDir, evals: readEvals(runPaths(runDir).evals) };
}

/** Continues an interrupted run from its latest checkpoint, with the config it was started with. */
export async function resume(
  runDir: string,
  options: Omit<TrainCallOptions, 'out'> = {},
): Promise<TrainResult> {
  const { log, backend, report = false } = options;
  await trainCommand({ resume: runDir, report, ...(backend === undefined ? {} : { backend }) }, logIo(log), [
    'train',
    '--resume',
    runDir,
  ]);
  return { runDir, evals: readEvals(runPaths(runDir).evals) };
}

/**
 * Success rates with 95% intervals per split and task type, of a checkpoint (a run directory,
 * checkpoint or policy directory) or a served model: `pilotrl eval`'s options, its table to `log`.
 */
export async function evaluate(options: EvalOptions & RunOutput): Promise<EvalRow[]> {
  const { log, ...evalOptions } = options;
  return evalCommand(evalOptions, logIo(log));
}
