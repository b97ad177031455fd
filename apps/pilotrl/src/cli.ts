// The `pilotrl` command line (commander): `--help` for every command, `--version`, suggestions for
// misspelt commands and flags, and every error as one line `pilotrl <command>: <what was wrong>`
// with exit code 1 (`--debug` prints the stack trace instead).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, PilotRLError } from '@pilotrl/core';
import { BACKEND_ORDER, parseBackendChoice } from '@pilotrl/policy-tfjs';
import { Command, CommanderError, Option } from 'commander';
import { computeCurve, parseSearchList } from './commands/compute-curve';
import { type EvalOptions, evalCommand } from './commands/eval';
import {
  EXPORT_FORMATS,
  type ExportFormat,
  exportCommand,
  LORA_EXPORTS,
  type LoraExport,
} from './commands/export';
import { type CliIo, processIo } from './commands/io';
import { play } from './commands/play';
import { reproduce } from './commands/reproduce';
import { serveUntilStopped } from './commands/serve';
import { serveEnvUntilStopped } from './commands/serve-env';
import { train } from './commands/train';
import { presets } from './config/presets';
import { DEFAULT_VARIANTS, VARIANTS, type Variant } from './evaluation/reproduce';
import { loadPlugins, loadRunPlugins } from './plugins/load';
import { writeReport } from './reporting/report';

/** This app's version, from its package.json (one directory above `src/` and `dist/` alike). */
const version = (): string =>
  (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string })
    .version;

/** Parses a whole number within [min, max]; `flag` names the option in the error. */
const integer =
  (flag: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      const range =
        max === Number.MAX_SAFE_INTEGER
          ? `an integer of at least ${min}`
          : `an integer from ${min} to ${max}`;
      throw new InvalidArgumentError(`${flag} must be ${range}, got "${value}"`);
    }
    return n;
  };

/** An option taking a whole number within [min, max]. */
const integerOption = (flags: string, description: string, min: number, max?: number) =>
  new Option(flags, description).argParser(integer(flags.split(' ')[0]!, min, max));

const backendOption = () =>
  new Option(
    '--backend <name>',
    `tfjs backend, overriding the config's policy.backend: auto (the fastest that loads), ${BACKEND_ORDER.join(', ')}`,
  ).argParser((value: string) => parseBackendChoice(value, '--backend'));

const list = (value: string) => value.split(',');

const parseSeeds = (value: string) => list(value).map(integer('--seeds', 0));

function parseVariants(value: string): Variant[] {
  const variants = list(value);
  const unknown = variants.filter((v) => !(VARIANTS as readonly string[]).includes(v));
  if (unknown.length > 0)
    throw new InvalidArgumentError(
      `--variants: unknown ${unknown.join(', ')}; allowed: ${VARIANTS.join(', ')}`,
    );
  return variants as Variant[];
}

/** Options as commander hands them to an action: flags given, defaults filled in. */
interface ComputeCurveFlags {
  config: string;
  seeds: number[];
  split: string;
  episodes: number;
  bestOf: ReturnType<typeof parseSearchList>;
  lookahead: ReturnType<typeof parseSearchList>;
  bestOfFrom: string[];
  lookaheadFrom: string[];
  runsDir: string;
  results?: string;
}

interface TrainFlags {
  config?: string;
  out?: string;
  resume?: string;
  backend?: ReturnType<typeof parseBackendChoice>;
  report: boolean;
}
/** `eval`'s flags: its options, with `--timeout` for `timeoutSeconds`. */
type EvalFlags = Omit<EvalOptions, 'timeoutSeconds'> & { timeout?: number };
interface ExportFlags {
  format: ExportFormat;
  lora: LoraExport;
}
interface PlayFlags {
  env: string;
  split: string;
  task: number;
  maxSteps: number;
}
interface ServerGuardFlags {
  allowHost?: string[];
  allowOrigin?: string[];
  apiKeyEnv?: string;
  shutdownTimeout?: number;
}
interface ServeFlags extends ServerGuardFlags {
  checkpoint: string;
  port: number;
  host: string;
  modelName: string;
  backend?: ReturnType<typeof parseBackendChoice>;
}
interface ServeEnvFlags extends ServerGuardFlags {
  env: string[];
  port: number;
  host: string;
  maxSessions?: number;
  idleTimeout?: number;
  stepTimeout?: number;
}

/** Both servers' options of who may call them and how long a shutdown may take. */
function serverGuardOptions(command: Command): Command {
  return command
    .option(
      '--allow-host <name,...>',
      'more Host names to answer besides the loopback ones (for a server reached by another name)',
      list,
    )
    .option(
      '--allow-origin <origin,...>',
      'web origins (scheme://host:port) whose pages may call the server; none by default',
      list,
    )
    .option('--api-key-env <VAR>', 'the environment variable holding the bearer key clients must send')
    .addOption(
      integerOption(
        '--shutdown-timeout <s>',
        'seconds requests in flight get to finish after SIGINT/SIGTERM (default 10)',
        0,
        86_400,
      ),
    );
}
interface ReproduceFlags {
  config: string;
  seeds: number[];
  variants: Variant[];
  runsDir: string;
  results?: string;
}

/** Drops the keys whose value is undefined, so optional fields stay absent. */
const given = <T extends object>(values: T) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };

/** A commander message as one line: no `error: ` prefix, its suggestion on the same line. */
const oneLine = (message: string) =>
  message
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.*)\)$/s, ' (did you mean $1)')
    .replace(/\s*\n\s*/g, ' ');

/** The program, its output going to `io`; `setCode` receives the exit code an action decides. */
function program(io: CliIo, argv: readonly string[], setCode: (code: number) => void): Command {
  const cli = new Command('pilotrl')
    .description(
      'Progressive RL curricula for AdaPlan agents: train, evaluate, report, export, play, serve, serve envs, reproduce.',
    )
    .version(version(), '-V, --version', 'print the version')
    .option('--debug', 'on an error, print its stack trace')
    .option(
      '--plugin <module>',
      'load envs from a plug-in package or file before the command (repeatable): a package installed here, or ./path',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .exitOverride()
    .showSuggestionAfterError()
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // runCli prints errors itself, as one line naming the command.
      outputError: () => undefined,
    });

  cli
    .command('train')
    .description('train a fresh run from a config file or preset, or continue one with --resume')
    .option('--config <file|preset>', 'a .yaml or .json curriculum, or a preset name')
    .option('--out <run-dir>', 'the run directory (default: runs/<name>-<timestamp>)')
    .option('--resume <run-dir>', 'continue an interrupted run from its latest checkpoint')
    .addOption(backendOption())
    .option('--no-report', 'skip writing the report when training ends')
    .addHelpText('after', `\nPresets: ${Object.keys(presets).join(', ')}`)
    .action(async (flags: TrainFlags) => {
      const { runDir } = await train(
        {
          ...given({ config: flags.config, out: flags.out, resume: flags.resume, backend: flags.backend }),
          report: flags.report,
        },
        io,
        argv,
      );
      io.stdout.write(`${runDir}\n`);
    });

  cli
    .command('eval')
    .description('success rate with 95% intervals per split and task type, of a checkpoint or a served model')
    .option('--checkpoint <dir>', 'a run directory, checkpoint or policy directory')
    .option('--base-url <url>', 'an OpenAI-compatible chat-completions server instead of a checkpoint')
    .option('--model <name>', 'the model name to ask --base-url for')
    .option('--api-key-env <VAR>', 'the environment variable holding the API key for --base-url')
    .addOption(
      integerOption(
        '--random <seeds>',
        'a uniformly random policy instead (a pick among the offered commands; random characters for free text), every task played once per seed 1..seeds: the chance level a trained policy has to beat',
        1,
        1000,
      ),
    )
    .option('--config <file|preset>', 'the curriculum whose env, agent and eval settings to use')
    .addOption(new Option('--paradigm <name>', 'the agent paradigm').choices(['adaplan', 'react']))
    .option('--splits <a,b>', 'comma-separated splits to evaluate', list)
    .addOption(integerOption('--episodes <n>', 'episodes per split', 1, 100_000))
    .option('--env <id>', 'the env to evaluate on')
    .addOption(backendOption())
    .option('--out <episodes.jsonl>', 'a new file that receives each episode as it finishes')
    .addOption(
      integerOption('--timeout <s>', 'for --base-url: seconds one request may take (default 60)', 1, 86_400),
    )
    .addOption(
      integerOption('--max-retries <n>', 'for --base-url: retries of a failed request (default 4)', 0, 100),
    )
    .addOption(
      integerOption('--max-concurrency <n>', 'for --base-url: requests in flight (default 8)', 1, 1024),
    )
    .addOption(
      new Option(
        '--dialect <name>',
        "for --base-url: the server's extensions: vllm (also SGLang and pilotrl serve; the default), llama-cpp (llama-cpp-python's server), openai (none)",
      ).choices(['vllm', 'llama-cpp', 'openai']),
    )
    .addOption(
      new Option(
        '--search <kind>',
        'test-time search: best-of-n (N plans, the best acted on) or lookahead (candidate actions tried on env copies); default none',
      ).choices(['none', 'best-of-n', 'lookahead']),
    )
    .addOption(integerOption('--n <count>', 'best-of-n: plans written per plan needed (default 4)', 0, 1024))
    .addOption(
      integerOption('--width <count>', 'lookahead: candidate actions per decision (default 4)', 0, 1024),
    )
    .addOption(
      integerOption(
        '--depth <steps>',
        'lookahead: env steps looked ahead per candidate (default 2)',
        0,
        100_000,
      ),
    )
    .addOption(
      new Option(
        '--scorer <name>',
        'best-of-n: judge (default) or value; lookahead: rollout (default) or value (needs a value head)',
      ).choices(['judge', 'value', 'rollout']),
    )
    .action(async ({ timeout, ...flags }: EvalFlags) => {
      await evalCommand(given({ ...flags, timeoutSeconds: timeout }), io);
    });

  cli
    .command('report')
    .description('write <run-dir>/report/index.html and the same charts as PNG files')
    .argument('<run-dir>', 'the run directory')
    .action(async (runDir: string) => {
      await loadRunPlugins(runDir);
      const files = writeReport(runDir);
      io.stdout.write(`${files.html}\n${files.pngs.join('\n')}\n`);
    });

  cli
    .command('export')
    .description(
      'write a checkpoint in a format other tools load: hf, a model directory for transformers and vLLM',
    )
    .argument(
      '<run-dir|checkpoint-dir>',
      'a run directory (its latest checkpoint), a checkpoint or a policy directory',
    )
    .argument('<out-dir>', 'a new or empty directory')
    .addOption(new Option('--format <name>', 'the format: hf').choices(EXPORT_FORMATS).makeOptionMandatory())
    .addOption(
      new Option(
        '--lora <how>',
        "a LoRA run's adapters: merge, into a whole model (default), or adapter, a PEFT adapter of the base model",
      )
        .choices(LORA_EXPORTS)
        .default('merge'),
    )
    .action(async (source: string, outDir: string, flags: ExportFlags) => {
      await exportCommand({ source, outDir, format: flags.format, lora: flags.lora }, io);
    });

  cli
    .command('play')
    .description('play an env in the terminal: type a number or a command, quit to stop')
    .option('--env <id>', 'the env', 'alfworld')
    .option('--split <name>', 'the split to draw the task from', 'valid_seen')
    .addOption(integerOption('--task <n>', 'the task index in the split', 0).default(0))
    .addOption(integerOption('--max-steps <n>', 'steps before the episode is cut', 1, 1000).default(50))
    .action(async (flags: PlayFlags) => {
      setCode(await play(flags, io));
    });

  serverGuardOptions(
    cli
      .command('serve')
      .description(
        'serve a checkpoint behind the OpenAI-compatible chat-completions API until SIGINT/SIGTERM',
      )
      .requiredOption('--checkpoint <dir>', 'a run directory, checkpoint or policy directory')
      .addOption(integerOption('--port <n>', 'the port (0: any free port)', 0, 65_535).default(8000))
      .option('--host <address>', 'the address to listen on', '127.0.0.1')
      .option('--model-name <name>', 'the model name clients ask for', 'pilotrl')
      .addOption(backendOption()),
  ).action(async (flags: ServeFlags) => {
    await serveUntilStopped(
      {
        checkpoint: flags.checkpoint,
        port: flags.port,
        host: flags.host,
        modelName: flags.modelName,
        ...given({
          apiKeyEnv: flags.apiKeyEnv,
          allowHosts: flags.allowHost,
          allowOrigins: flags.allowOrigin,
          backend: flags.backend,
          shutdownTimeoutMs: flags.shutdownTimeout === undefined ? undefined : flags.shutdownTimeout * 1000,
        }),
      },
      io,
    );
  });

  serverGuardOptions(
    cli
      .command('serve-env')
      .description(
        "serve envs to Python trainers over OpenEnv and AgentGym's HTTP dialects until SIGINT/SIGTERM",
      )
      .requiredOption('--env <id,...>', 'comma-separated ids of the envs to serve, e.g. alfworld,maze', list)
      .addOption(integerOption('--port <n>', 'the port (0: any free port)', 0, 65_535).default(8000))
      .option('--host <address>', 'the address to listen on', '127.0.0.1')
      .addOption(integerOption('--max-sessions <n>', 'open sessions at most (default 1024)', 1))
      .addOption(
        integerOption('--idle-timeout <s>', 'seconds before an idle session is closed (default 900)', 1),
      )
      .addOption(integerOption('--step-timeout <s>', 'seconds a step may take (default 30)', 1)),
  ).action(async (flags: ServeEnvFlags) => {
    await serveEnvUntilStopped(
      {
        envs: flags.env,
        port: flags.port,
        host: flags.host,
        ...given({
          apiKeyEnv: flags.apiKeyEnv,
          allowHosts: flags.allowHost,
          allowOrigins: flags.allowOrigin,
          shutdownTimeoutMs: flags.shutdownTimeout === undefined ? undefined : flags.shutdownTimeout * 1000,
        }),
        limits: given({
          maxSessions: flags.maxSessions,
          idleTimeoutMs: flags.idleTimeout === undefined ? undefined : flags.idleTimeout * 1000,
          stepTimeoutMs: flags.stepTimeout === undefined ? undefined : flags.stepTimeout * 1000,
        }),
      },
      io,
    );
  });

  cli
    .command('reproduce')
    .description("train every variant of the paper's comparison for every seed and write the results page")
    .option('--config <file|preset>', 'the base curriculum of every variant', 'quick')
    .addOption(
      new Option('--seeds <list>', 'comma-separated seeds').argParser(parseSeeds).default([1, 2, 3], '1,2,3'),
    )
    .addOption(
      new Option('--variants <list>', 'comma-separated variants')
        .argParser(parseVariants)
        .default(
          [...DEFAULT_VARIANTS],
          `${DEFAULT_VARIANTS.join(',')} (adaptive: the plan-revision ablation)`,
        ),
    )
    .option('--runs-dir <dir>', 'where the runs go, one directory per variant and seed', 'runs/reproduce')
    .option(
      '--results <file.md>',
      'the results page; its PNG charts go to results/ beside it (default: <runs-dir>/RESULTS.md)',
    )
    .action(async (flags: ReproduceFlags) => {
      await reproduce(
        {
          config: flags.config,
          seeds: flags.seeds,
          variants: flags.variants,
          runsDir: flags.runsDir,
          results: flags.results ?? join(flags.runsDir, 'RESULTS.md'),
        },
        io,
      );
    });

  cli
    .command('compute-curve')
    .description(
      'held-out success against CPU seconds: more training (each phase end, greedy) and more test-time search from the same checkpoints, over seeds',
    )
    .option('--config <file|preset>', 'the curriculum trained once per seed', 'quick')
    .addOption(
      new Option('--seeds <list>', 'comma-separated seeds').argParser(parseSeeds).default([1, 2, 3], '1,2,3'),
    )
    .option('--split <name>', 'the held-out split every point is evaluated on', 'valid_unseen')
    .addOption(integerOption('--episodes <n>', 'episodes per point (default 200)', 1).default(200))
    .addOption(
      new Option('--best-of <list>', 'best-of-N plans: N values, e.g. 2,4,8,16:judge (scorer judge or value)')
        .argParser((value: string) => parseSearchList('best-of-n', value))
        .default([]),
    )
    .addOption(
      new Option(
        '--lookahead <list>',
        'look-ahead: width x depth values, e.g. 4x1,4x2:rollout (scorer rollout or value)',
      )
        .argParser((value: string) => parseSearchList('lookahead', value))
        .default([]),
    )
    .option('--best-of-from <phases>', 'phases whose end best-of-N searches from (names, or last)', list, [
      'sft',
      'last',
    ])
    .option('--lookahead-from <phases>', 'phases whose end look-ahead searches from (names, or last)', list, [
      'sft',
      'last',
    ])
    .option('--runs-dir <dir>', 'where the runs go, one directory per seed', 'runs/compute-curve')
    .option(
      '--results <file.md>',
      'the results page (its section compute-curve; the plot goes to results/ beside it)',
    )
    .action(async (flags: ComputeCurveFlags) => {
      await computeCurve(
        {
          config: flags.config,
          seeds: flags.seeds,
          split: flags.split,
          episodes: flags.episodes,
          bestOf: flags.bestOf,
          bestOfFrom: flags.bestOfFrom,
          lookahead: flags.lookahead,
          lookaheadFrom: flags.lookaheadFrom,
          runsDir: flags.runsDir,
          results: flags.results ?? join(flags.runsDir, 'RESULTS.md'),
        },
        io,
      );
    });

  return cli;
}

/** Runs `pilotrl <argv>` and returns the exit code: 0 on success, 1 on an error. */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let code = 0;
  let command = '';
  const cli = program(io, argv, (c) => {
    code = c;
  });
  cli.hook('preSubcommand', (_cli, subcommand) => {
    command = subcommand.name();
  });
  // Plug-ins named on the command line are loaded before any command runs, relative to the working directory.
  cli.hook('preAction', async () => {
    await loadPlugins(cli.opts<{ plugin: string[] }>().plugin, process.cwd());
  });
  try {
    await cli.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    const where = command === '' ? 'pilotrl' : `pilotrl ${command}`;
    if (error instanceof CommanderError) {
      // Help and the version were printed by commander; a missing command printed the help.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return error.exitCode;
      io.stderr.write(`${where}: ${oneLine(error.message)}; see ${where} --help\n`);
      return error.exitCode === 0 ? 1 : error.exitCode;
    }
    io.stderr.write(`${where}: ${describeError(error, cli.opts().debug === true)}\n`);
    return 1;
  }
}

/** An error for the terminal: its message, or with `debug` its stack and causes. */
function describeError(error: unknown, debug: boolean): string {
  if (!(error instanceof Error)) return String(error);
  if (debug) {
    const causes: string[] = [];
    for (let cause = error.cause; cause !== undefined && causes.length < 5; cause = (cause as Error).cause)
      causes.push(`caused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`);
    return [error.stack ?? error.message, ...causes].join('\n');
  }
  // Our errors say what was wrong and how to fix it; anything else is a bug worth a stack trace.
  return PilotRLError.isInstance(error) || 'code' in error
    ? error.message
    : `${error.message} (run again with --debug for the stack trace)`;
}
