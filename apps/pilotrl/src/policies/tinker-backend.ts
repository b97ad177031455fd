// The `tinker` policy backend: a base model trained on a server that speaks the Tinker training API
// (SkyRL's open server, or the hosted service). The server samples freely (the API has no
// constrained decoding, so no choice actions, plan steps or expert iteration) and returns only the
// targets' logprobs (no value head, no entropy bonus).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  type Datum,
  type FrozenPolicy,
  type PolicyBackendDescriptor,
  type PolicyOptions,
  type ReplyExample,
  type RunPolicy,
} from '@pilotrl/core';
import { createTinkerPolicy, type TinkerPolicy } from '@pilotrl/tinker';
import { z } from 'zod';
import { keyLimits, MIN_CONTEXT_LENGTH } from '../config/resource-bounds';
import { needed } from '../config/schema-parts';
import { DelegatingPolicy } from './delegating-policy';

/** The Tinker keys of `policy`. */
export const tinkerOptionsSchema = z.object({
  /** The server's root URL, e.g. `http://127.0.0.1:8000`. */
  baseUrl: z.url(needed('a Tinker policy needs policy.baseUrl')),
  /** The base model's name as the server knows it. */
  baseModel: z.string(needed('a Tinker policy needs policy.baseModel')).min(1),
  /** A directory holding the base model's `tokenizer.json` (default: `baseModel`, when it is a local directory). */
  tokenizerDir: z.string().min(1).optional(),
  /** The LoRA rank trained; 0 asks for a full fine-tune where the server offers one. */
  loraRank: z.number().int().nonnegative().max(1024).optional(),
  /** The environment variable holding the API key (hosted Tinker); SkyRL needs none. */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
  /** The model's context length in tokens (the server does not report it). */
  contextLength: z
    .number(
      needed("a Tinker policy needs the model's context length in tokens (the server does not report it)"),
    )
    .int()
    .min(MIN_CONTEXT_LENGTH, {
      error: (issue) => `must be at least ${MIN_CONTEXT_LENGTH} (got ${issue.input})`,
    })
    .max(keyLimits.contextLength, {
      error: (issue) => `must be at most ${keyLimits.contextLength} (got ${issue.input})`,
    }),
});

export type TinkerBackendOptions = PolicyOptions & z.output<typeof tinkerOptionsSchema>;

/** The LoRA rank a Tinker policy trains: the config's, or the Tinker SDK's default, 32. */
const loraRankOf = (options: TinkerBackendOptions): number => options.loraRank ?? 32;

/** The directory of the Tinker model's tokenizer: `tokenizerDir`, or the base model's own directory. */
function tokenizerDirOf(options: TinkerBackendOptions): string {
  if (options.tokenizerDir !== undefined) return options.tokenizerDir;
  const { baseModel } = options;
  if (existsSync(baseModel) && statSync(baseModel).isDirectory()) return baseModel;
  throw new ConfigError(
    `policy.tokenizerDir: give a local directory holding the tokenizer.json of ${baseModel} (the base model is not a local directory to read it from)`,
  );
}

function connectTinker(options: TinkerBackendOptions, name: string): Promise<TinkerPolicy> {
  let apiKey: string | undefined;
  if (options.apiKeyEnv !== undefined) {
    apiKey = process.env[options.apiKeyEnv];
    if (!apiKey)
      throw new ConfigError(`policy.apiKeyEnv: the environment variable ${options.apiKeyEnv} is not set`);
  }
  return createTinkerPolicy({
    baseUrl: options.baseUrl,
    baseModel: options.baseModel,
    tokenizerDir: tokenizerDirOf(options),
    loraRank: loraRankOf(options),
    seed: options.seed,
    name,
    ...(apiKey === undefined ? {} : { apiKey }),
  });
}

class TinkerRunPolicy extends DelegatingPolicy<TinkerPolicy> implements RunPolicy {
  constructor(
    inner: TinkerPolicy,
    private readonly options: TinkerBackendOptions,
  ) {
    super(inner);
  }
  readonly backendName = 'tinker';
  describe(): string {
    const loraRank = loraRankOf(this.options);
    const rank = loraRank === 0 ? 'full fine-tune' : `LoRA rank ${loraRank}`;
    return `${this.inner.name} on ${this.options.baseUrl} (${rank}), vocabulary ${this.inner.tokenizer.vocabSize}`;
  }
  replyDatum(example: ReplyExample): Datum {
    return this.inner.replyDatum(example.prompt, example.response);
  }
  /** A second model on the server, loaded with the weights saved now. */
  async freeze(): Promise<FrozenPolicy> {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-tinker-reference-'));
    try {
      await this.inner.saveState(dir);
      const copy = await connectTinker(this.options, `${this.inner.name} (frozen at v${this.inner.version})`);
      try {
        await copy.loadState(dir);
      } catch (error) {
        copy.close();
        throw error;
      }
      return { policy: copy, dispose: async () => copy.close() };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  dispose(): void {
    this.inner.close();
  }
}

export const tinkerBackend: PolicyBackendDescriptor<TinkerBackendOptions> = {
  id: 'tinker',
  description: 'a base model trained on a server that speaks the Tinker training API (SkyRL, hosted Tinker)',
  title: 'Tinker',
  engine: 'the Tinker API',
  trainsOn: 'a Tinker server',
  optionsSchema: tinkerOptionsSchema,
  offers: { choices: false, valueHead: false, entropy: false, localTraining: false, backendChoice: false },
  contextLength: (options) => options.contextLength,
  async start(options) {
    const loraRank = loraRankOf(options);
    const rank = loraRank === 0 ? 'full fine-tune' : `LoRA rank ${loraRank}`;
    return { line: `policy ${options.baseModel} trained on the Tinker server ${options.baseUrl} (${rank})` };
  },
  async create(options, context) {
    return {
      policy: new TinkerRunPolicy(await connectTinker(options, context.name), options),
      dataHashes: {},
    };
  },
  async load(options, dir, context) {
    const policy = new TinkerRunPolicy(await connectTinker(options, context.name), options);
    try {
      await policy.loadState(dir);
    } catch (error) {
      policy.dispose();
      throw error;
    }
    return policy;
  },
};
