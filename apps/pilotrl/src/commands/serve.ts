// `pilotrl serve`: a trained checkpoint behind the OpenAI-compatible chat-completions API, until
// SIGINT or SIGTERM; then requests in flight get a bounded time to finish and the policy is released.
// It answers its loopback names and the hosts given, and no web page unless its origin is given.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type Policy, parseOrThrow } from '@pilotrl/core';
import { LOOPBACK_HOSTS } from '@pilotrl/http-guard';
import { chatCompletionsServerOptionsSchema, createChatCompletionsServer } from '@pilotrl/llm';
import { type BackendChoice, describeBackend, TfjsPolicy } from '@pilotrl/policy-tfjs';
import { MANIFEST_FILE } from '@pilotrl/tinker';
import { loadRunPlugins } from '../plugins/load';
import { policyBackendOf } from '../policies/registry';
import { backendOption } from '../policies/tfjs-backend';
import { readRunConfig } from '../run/run-dir';
import { loadRunPolicy } from '../run/run-policy';
import { policyDir, runDirOf } from './eval';
import type { CliIo } from './io';
import { withBackend } from './train';

export interface ServeOptions {
  checkpoint: string;
  port: number;
  host: string;
  modelName: string;
  /** The environment variable holding the bearer key clients must send (16 characters or more). */
  apiKeyEnv?: string;
  /** Host names answered besides the loopback ones (a server reached by another name). */
  allowHosts?: readonly string[];
  /** Web origins whose pages may call the server (none by default). */
  allowOrigins?: readonly string[];
  backend?: 'auto' | BackendChoice;
  /** How long a shutdown lets requests in flight finish before cutting them (default 10 s). */
  shutdownTimeoutMs?: number;
}

/** Where the stop signals come from: `process`, or an emitter in tests. */
export type SignalSource = Pick<NodeJS.EventEmitter, 'on' | 'off'>;

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export async function serve(
  options: ServeOptions,
  io: CliIo,
): Promise<{ url: string; shutdownTimeoutMs: number; close: () => Promise<void> }> {
  const shutdownTimeoutMs = parseOrThrow(
    chatCompletionsServerOptionsSchema.shape.shutdownTimeoutMs,
    options.shutdownTimeoutMs,
    'serve option shutdownTimeoutMs',
  );
  const dir = policyDir(options.checkpoint);
  if (existsSync(join(dir, MANIFEST_FILE))) {
    throw new InvalidArgumentError(
      `${options.checkpoint} is a Tinker checkpoint: its weights are on the Tinker server that trained them; sample them there (its sampler, or an OpenAI-compatible server loading the saved adapter)`,
    );
  }
  const policy = await loadServedPolicy(options, dir, io);
  let server: ReturnType<typeof createChatCompletionsServer>;
  let url: string;
  // A key too short or unset, or an address that cannot be bound, must not leak the loaded model.
  try {
    server = createChatCompletionsServer({
      policy: policy.sampler(),
      modelName: options.modelName,
      shutdownTimeoutMs,
      allowedHosts: [...LOOPBACK_HOSTS, ...(options.allowHosts ?? [])],
      allowedOrigins: [...(options.allowOrigins ?? [])],
      ...(options.apiKeyEnv === undefined ? {} : { apiKeyEnv: options.apiKeyEnv }),
    });
    url = await server.listen(options.port, options.host);
  } catch (error) {
    policy.dispose();
    throw error;
  }
  io.stdout.write(`pilotrl: serving ${options.checkpoint} as model "${options.modelName}" at ${url}\n`);
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= server.close().finally(() => policy.dispose());
    return closed;
  };
  return { url, shutdownTimeoutMs, close };
}

/**
 * The policy in `dir`: a run's checkpoint through the run's policy backend (`policy.kind`, e.g. a
 * Hugging Face model's LoRA state on its model directory), or a tfjs policy saved on its own.
 */
async function loadServedPolicy(
  options: ServeOptions,
  dir: string,
  io: CliIo,
): Promise<{ sampler(): Policy; dispose(): void }> {
  const runDir = runDirOf(options.checkpoint);
  if (runDir === undefined) {
    const policy = await TfjsPolicy.load(dir, backendOption(options.backend ?? 'auto'));
    io.stderr.write(`pilotrl: backend ${describeBackend(policy.backend)}\n`);
    return policy;
  }
  await loadRunPlugins(runDir);
  const config = withBackend(readRunConfig(runDir), options.backend);
  const { line } = await policyBackendOf(config.policy).start(config.policy, 'evaluate');
  io.stderr.write(`pilotrl: ${line}\n`);
  return loadRunPolicy(config, dir);
}

/**
 * Serves until the first SIGINT or SIGTERM, then shuts down within `shutdownTimeoutMs`. The
 * handlers go with the first signal, so a second one ends the process at once.
 */
export async function serveUntilStopped(
  options: ServeOptions,
  io: CliIo,
  signals: SignalSource = process,
): Promise<void> {
  const server = await serve(options, io);
  const signal = await new Promise<string>((resolve) => {
    const stop = (name: string) => {
      for (const each of STOP_SIGNALS) signals.off(each, stop);
      resolve(name);
    };
    for (const each of STOP_SIGNALS) signals.on(each, stop);
  });
  io.stderr.write(
    `pilotrl: ${signal}: stopping; requests in flight get up to ${server.shutdownTimeoutMs / 1000} s to finish\n`,
  );
  await server.close();
}
