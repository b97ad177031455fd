// llama-cpp-python's OpenAI-compatible server with Gemma 3 270M, from the venv that
// packages/llm/reference/setup.sh makes, for the engine tests of @pilotrl/llm and the pilotrl app:
// started on a free port of 127.0.0.1, ready when `GET /v1/models` answers (within a bound),
// watched for a death after that (tooling/server-process.ts), and stopped by `close()`.
import { join } from 'node:path';
import { type ReferenceVenv, referenceVenv } from './reference-suite';
import { freePort, startServerProcess } from './server-process';

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
  /** Throws, with its exit code or signal and log, when the server died by itself (call in `afterEach`). */
  assertAlive(): void;
  /** Stops the server; rejects with the report of its death when it had died by itself. */
  close(): Promise<void>;
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
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const server = await startServerProcess({
    name: 'llama_cpp.server',
    command: reference.python,
    args: [
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
    ],
    readyUrl: `${baseUrl}/models`,
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
  });
  return {
    baseUrl,
    model: GEMMA_MODEL,
    log: server.log,
    assertAlive: server.assertAlive,
    close: async () => {
      await server.stop();
      server.assertAlive();
    },
  };
}
