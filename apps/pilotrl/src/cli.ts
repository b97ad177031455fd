// The `pilotrl` command line: parses arguments per command and reports errors as one clear
// message (PilotRL errors carry what, where and how to fix) with a non-zero exit code.
import { parseArgs } from 'node:util';
import { PilotRLError } from '@pilotrl/core';
import { parseBackendChoice } from '@pilotrl/policy-tfjs';
import { evalCommand } from './commands/eval';
import { type CliIo, processIo } from './commands/io';
import { play } from './commands/play';
import { reproduce } from './commands/reproduce';
import { serveUntilStopped } from './commands/serve';
import { train } from './commands/train';
import { presets } from './presets';
import { writeReport } from './report';
import { VARIANTS, type Variant } from './reproduce';

export const USAGE = `Usage: pilotrl <command> [options]

Commands:
  train   --config <file.yaml|file.json|preset> [--out <run-dir>] [--no-report]
          --resume <run-dir>             continue an interrupted run from its latest checkpoint
          [--backend auto|tensorflow-gpu|tensorflow|wasm|cpu]   overrides the config's policy.backend
          presets: ${Object.keys(presets).join(', ')}
  eval    --checkpoint <dir> | --base-url <url> --model <name> [--api-key-env <VAR>]
          [--config <file|preset>] [--paradigm adaplan|react] [--splits valid_seen,valid_unseen]
          [--episodes <n>] [--env <id>] [--backend <name>] [--out <episodes.jsonl>]
          [--timeout <s>] [--max-retries <n>] [--max-concurrency <n>]   for --base-url
  report  <run-dir>                      write <run-dir>/report/index.html and PNG charts
  play    [--env alfworld] [--split valid_seen] [--task <n>] [--max-steps <n>]
  serve   --checkpoint <dir> [--port 8000] [--host 127.0.0.1] [--model-name pilotrl] [--backend <name>]
          [--shutdown-timeout 10]        seconds requests in flight get to finish after SIGINT/SIGTERM
  reproduce --config <file|preset> [--seeds 1,2,3] [--variants ${VARIANTS.join(',')}]
          [--runs-dir runs/reproduce] [--results docs/RESULTS.md]
`;

/** `--backend`, when given: auto or a backend name. */
const backendFlag = (value: string | undefined) =>
  value === undefined ? {} : { backend: parseBackendChoice(value, '--backend') };

/** An integer flag within [min, max], or undefined when not given. */
const integerFlag = (
  value: string | undefined,
  flag: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
    throw new PilotRLError(`${flag} must be ${range}, got "${value}"`);
  }
  return n;
};

export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'train': {
        const { values } = parseArgs({
          args: rest,
          options: {
            config: { type: 'string' },
            out: { type: 'string' },
            resume: { type: 'string' },
            backend: { type: 'string' },
            'no-report': { type: 'boolean', default: false },
          },
        });
        const { runDir, evals } = await train(
          {
            ...(values.config === undefined ? {} : { config: values.config }),
            ...(values.out === undefined ? {} : { out: values.out }),
            ...(values.resume === undefined ? {} : { resume: values.resume }),
            ...backendFlag(values.backend),
            report: !values['no-report'],
          },
          io,
          argv,
        );
        io.stdout.write(`${runDir}\n`);
        return evals.length >= 0 ? 0 : 1;
      }
      case 'eval': {
        const { values } = parseArgs({
          args: rest,
          options: {
            checkpoint: { type: 'string' },
            'base-url': { type: 'string' },
            model: { type: 'string' },
            'api-key-env': { type: 'string' },
            config: { type: 'string' },
            paradigm: { type: 'string' },
            splits: { type: 'string' },
            episodes: { type: 'string' },
            env: { type: 'string' },
            backend: { type: 'string' },
            out: { type: 'string' },
            timeout: { type: 'string' },
            'max-retries': { type: 'string' },
            'max-concurrency': { type: 'string' },
          },
        });
        if (values.paradigm !== undefined && values.paradigm !== 'adaplan' && values.paradigm !== 'react') {
          throw new PilotRLError(`--paradigm must be adaplan or react, got "${values.paradigm}"`);
        }
        const episodes = integerFlag(values.episodes, '--episodes', 1, 100_000);
        const timeoutSeconds = integerFlag(values.timeout, '--timeout', 1, 86_400);
        const maxRetries = integerFlag(values['max-retries'], '--max-retries', 0, 100);
        const maxConcurrency = integerFlag(values['max-concurrency'], '--max-concurrency', 1, 1024);
        await evalCommand(
          {
            ...(values.checkpoint === undefined ? {} : { checkpoint: values.checkpoint }),
            ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
            ...(values.model === undefined ? {} : { model: values.model }),
            ...(values['api-key-env'] === undefined ? {} : { apiKeyEnv: values['api-key-env'] }),
            ...(values.config === undefined ? {} : { config: values.config }),
            ...(values.paradigm === undefined ? {} : { paradigm: values.paradigm }),
            ...(values.splits === undefined ? {} : { splits: values.splits.split(',') }),
            ...(episodes === undefined ? {} : { episodes }),
            ...(values.env === undefined ? {} : { env: values.env }),
            ...backendFlag(values.backend),
            ...(values.out === undefined ? {} : { out: values.out }),
            ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
            ...(maxRetries === undefined ? {} : { maxRetries }),
            ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
          },
          io,
        );
        return 0;
      }
      case 'report': {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        if (positionals.length !== 1)
          throw new PilotRLError('pilotrl report takes one argument: the run directory');
        const files = writeReport(positionals[0]!);
        io.stdout.write(`${files.html}\n${files.pngs.join('\n')}\n`);
        return 0;
      }
      case 'play': {
        const { values } = parseArgs({
          args: rest,
          options: {
            env: { type: 'string', default: 'alfworld' },
            split: { type: 'string', default: 'valid_seen' },
            task: { type: 'string', default: '0' },
            'max-steps': { type: 'string', default: '50' },
          },
        });
        return await play(
          {
            env: values.env,
            split: values.split,
            task: integerFlag(values.task, '--task')!,
            maxSteps: integerFlag(values['max-steps'], '--max-steps')!,
          },
          io,
        );
      }
      case 'serve': {
        const { values } = parseArgs({
          args: rest,
          options: {
            checkpoint: { type: 'string' },
            port: { type: 'string', default: '8000' },
            host: { type: 'string', default: '127.0.0.1' },
            'model-name': { type: 'string', default: 'pilotrl' },
            'api-key-env': { type: 'string' },
            backend: { type: 'string' },
            'shutdown-timeout': { type: 'string' },
          },
        });
        if (values.checkpoint === undefined) throw new PilotRLError('pilotrl serve needs --checkpoint <dir>');
        const shutdownSeconds = integerFlag(values['shutdown-timeout'], '--shutdown-timeout', 0, 86_400);
        await serveUntilStopped(
          {
            checkpoint: values.checkpoint,
            port: integerFlag(values.port, '--port', 0, 65535)!,
            host: values.host,
            modelName: values['model-name'],
            ...(values['api-key-env'] === undefined ? {} : { apiKeyEnv: values['api-key-env'] }),
            ...backendFlag(values.backend),
            ...(shutdownSeconds === undefined ? {} : { shutdownTimeoutMs: shutdownSeconds * 1000 }),
          },
          io,
        );
        return 0;
      }
      case 'reproduce': {
        const { values } = parseArgs({
          args: rest,
          options: {
            config: { type: 'string', default: 'quick' },
            seeds: { type: 'string', default: '1,2,3' },
            variants: { type: 'string', default: VARIANTS.join(',') },
            'runs-dir': { type: 'string', default: 'runs/reproduce' },
            results: { type: 'string', default: 'docs/RESULTS.md' },
          },
        });
        const variants = values.variants.split(',');
        const unknown = variants.filter((v) => !(VARIANTS as readonly string[]).includes(v));
        if (unknown.length > 0)
          throw new PilotRLError(
            `--variants: unknown ${unknown.join(', ')}; allowed: ${VARIANTS.join(', ')}`,
          );
        await reproduce(
          {
            config: values.config,
            seeds: values.seeds.split(',').map((s) => integerFlag(s, '--seeds')!),
            variants: variants as Variant[],
            runsDir: values['runs-dir'],
            results: values.results,
          },
          io,
        );
        return 0;
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(USAGE);
        return command === undefined ? 1 : 0;
      default:
        io.stderr.write(`pilotrl: unknown command "${command}"\n\n${USAGE}`);
        return 1;
    }
  } catch (error) {
    const named = PilotRLError.isInstance(error) || (error instanceof TypeError && 'code' in error);
    io.stderr.write(
      `pilotrl ${command}: ${named ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`,
    );
    return 1;
  }
}
