// SkyRL's Tinker-compatible training server (PyPI skyrl 0.4.0, JAX backend on the CPU), from the
// venv that packages/tinker/reference/setup.sh makes, for the engine tests of @pilotrl/tinker: a
// tiny Qwen3 and its byte-level BPE tokenizer are made on the spot (reference/make_tiny_model.py;
// no model hub needed), the server is started on a free port of 127.0.0.1 with its database and
// checkpoints in a scratch directory, and is ready when `/api/v1/healthz` answers. The server
// relaunches its engine through `uv run`, so the venv's bin (which holds uv) goes first on PATH.
// `close()` stops the whole process group and removes the scratch directory.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type ReferenceVenv, referenceVenv } from './reference-suite';
import { freePort, startServerProcess } from './server-process';

const repoRoot = resolve(import.meta.dirname, '..');
const tinyModelScript = join(repoRoot, 'packages/tinker/reference/make_tiny_model.py');

/** The venv of packages/tinker/reference/setup.sh, for the suite `what`. */
export function tinkerReference(what: string): ReferenceVenv {
  return referenceVenv(
    'tinker-reference',
    what,
    'packages/tinker/reference/setup.sh',
    'Python 3.12 and PyPI; about 6 GB (CUDA torch from PyPI), a few minutes',
  );
}

export interface TinkerServer {
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** The base model's name as the server knows it (its directory). */
  readonly baseModel: string;
  /** Where the tiny model's tokenizer.json is. */
  readonly tokenizerDir: string;
  /** The scratch directory (model, database, checkpoints). */
  readonly dir: string;
  /** The server's output so far, for failure messages. */
  log(): string;
  /** Throws, with its exit code or signal and log, when the server died by itself (call in `afterEach`). */
  assertAlive(): void;
  /** Stops the server and its engine at once (SIGKILL to the process group), keeping the scratch directory. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

/** How the tiny model is made (make_tiny_model.py's options). */
export interface TinyModelOptions {
  vocabSize?: number;
  /** Positions the model takes (default 512). */
  maxPositions?: number;
  /** Initial spread of the weights (default 0.02); 0.3 lets a LoRA learn a format. */
  initStd?: number;
}

/** Writes a tiny model (or, with `tokenizerOnly`, just a tokenizer of `vocabSize`) to `dir`. */
export async function makeTinyModel(
  reference: ReferenceVenv,
  dir: string,
  options: TinyModelOptions & { tokenizerOnly?: boolean } = {},
): Promise<void> {
  const args = [tinyModelScript, dir];
  if (options.vocabSize !== undefined) args.push('--vocab-size', String(options.vocabSize));
  if (options.maxPositions !== undefined) args.push('--max-positions', String(options.maxPositions));
  if (options.initStd !== undefined) args.push('--init-std', String(options.initStd));
  if (options.tokenizerOnly) args.push('--tokenizer-only');
  await promisify(execFile)(reference.python, args, {
    env: { ...process.env, TOKENIZERS_PARALLELISM: 'false' },
  });
}

/** Makes the tiny model and starts the server on it; rejects with the server's log if it is not ready in time. */
export async function startTinkerServer(
  reference: ReferenceVenv,
  options: { readyTimeoutMs?: number; model?: TinyModelOptions } = {},
): Promise<TinkerServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pilotrl-tinker-'));
  const modelDir = join(dir, 'tiny-qwen3');
  await makeTinyModel(reference, modelDir, options.model);
  const port = await freePort();
  const bin = join(reference.dir, 'bin');
  const args = [
    'run',
    '--no-project',
    '--python',
    reference.python,
    '-m',
    'skyrl.tinker.api',
    '--base-model',
    modelDir,
    '--backend',
    'jax',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--database-url',
    `sqlite:///${join(dir, 'tinker.db')}`,
    '--checkpoints-base',
    join(dir, 'ckpts'),
  ];
  const server = await startServerProcess({
    name: 'skyrl.tinker.api',
    command: join(bin, 'uv'),
    args,
    spawn: {
      cwd: dir,
      detached: true,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, JAX_PLATFORMS: 'cpu' },
    },
    readyUrl: `http://127.0.0.1:${port}/api/v1/healthz`,
    readyTimeoutMs: options.readyTimeoutMs ?? 120_000,
    logChars: 40_000,
    reportChars: 4_000,
  }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    baseModel: modelDir,
    tokenizerDir: modelDir,
    dir,
    log: server.log,
    assertAlive: server.assertAlive,
    // The whole process group at once: the server relaunches its engine as a child.
    kill: () => server.stop('SIGKILL'),
    close: async () => {
      await server.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      server.assertAlive();
    },
  };
}
