// llama-cpp-python's OpenAI-compatible server with Gemma 3 270M, from the venv that
// packages/llm/reference/setup.sh makes, for the engine tests of @pilotrl/llm and the pilotrl app:
// started on a free port of 127.0.0.1, ready when `GET /v1/models` answers (within a bound), and
// stopped by `close()`.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type ReferenceVenv, referenceVenv } from './reference-suite';

/** The model file setup.sh assembles into the venv, and the name the server gives it. */
export const GEMMA_GGUF = 'gemma-3-270m-q4_k_m.gguf';
export const GEMMA_MODEL = 'gemma-3-270m';

/** The venv of packages/llm/reference/setup.sh, for the suite `what`. */
export function llamaCppReference(what: string): ReferenceVenv {
  return referenceVenv(
    'llm-reference',
    what,
    'packages/llm/reference/setup.sh',
    'PyPI, cmake and a C++ compiler; about 11 minutes on 2 cores, as it builds llama.cpp',
  );
}

export interface LlamaCppServer {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  /** The server's stderr so far (llama.cpp's log), for failure messages. */
  log(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/**
 * Starts `python -m llama_cpp.server` on Gemma 3 270M with `threads` CPU threads and a context of
 * `contextTokens`, and resolves once `/v1/models` answers; rejects with the server's log when it
 * exits first or is not ready within `readyTimeoutMs`. The GGUF has no chat template, so Gemma's
 * chat format is named (without it chat replies are empty).
 */
export async function startLlamaCppServer(
  reference: ReferenceVenv,
  options: { contextTokens?: number; threads?: number; readyTimeoutMs?: number } = {},
): Promise<LlamaCppServer> {
  const port = await freePort();
  const args = [
    '-m',
    'llama_cpp.server',
    '--model',
    join(reference.dir, GEMMA_GGUF),
    '--model_alias',
    GEMMA_MODEL,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--n_ctx',
    String(options.contextTokens ?? 4096),
    '--n_threads',
    String(options.threads ?? 2),
    '--chat_format',
    'gemma',
  ];
  const child: ChildProcess = spawn(reference.python, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk).slice(-20_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let gone: number | null | undefined;
  void exited.then((code) => {
    gone = code;
  });
  for (;;) {
    if (gone !== undefined) {
      throw new Error(`llama_cpp.server exited with ${gone} before it was ready:\n${log.slice(-3000)}`);
    }
    try {
      const response = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(
        `llama_cpp.server was not ready within ${options.readyTimeoutMs ?? 60_000} ms:\n${log.slice(-3000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { baseUrl, model: GEMMA_MODEL, log: () => log, close };
}
