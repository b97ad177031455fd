// The `hf` policy backend: a pretrained Hugging Face model (Llama or Qwen3) read from a directory on
// disk and trained in this process (`HfPolicy` of @pilotrl/policy-tfjs), every weight or LoRA
// adapters only. Its own descriptor rather than keys of `tfjs`: the model's shape, tokenizer and
// context come from the directory, so tfjs's keys that build a model from scratch are refused here
// with their reason, and it offers no value head where tfjs does (offers are one per backend).
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CheckpointError,
  type Datum,
  type FrozenPolicy,
  type PolicyBackendContext,
  type PolicyBackendDescriptor,
  type PolicyOptions,
  type PolicyOptionsProblem,
  type ReplyExample,
  type RunPolicy,
} from '@pilotrl/core';
import { HfPolicy, LORA_TARGET_MODULES, readHfConfigSync } from '@pilotrl/policy-tfjs';
import { z } from 'zod';
import { keyLimits, MIN_CONTEXT_LENGTH } from '../config/resource-bounds';
import { count, needed, strict } from '../config/schema-parts';
import { DelegatingPolicy } from './delegating-policy';
import { backendOption, startTfjsBackend, tfjsOptionsSchema } from './tfjs-backend';

/** LoRA adapters on the linear layers of every block; the base weights stay frozen. */
const loraSchema = strict({
  /** Inner dimension of each adapter's two matrices. */
  rank: count(1024),
  /** The adapters' output is scaled by alpha / rank. */
  alpha: z.number().positive(),
  /** The layers of every block to adapt (default: the attention projections). */
  targetModules: z
    .array(z.enum(LORA_TARGET_MODULES))
    .min(1)
    .default(['q_proj', 'k_proj', 'v_proj', 'o_proj']),
});

/** The Hugging Face keys of `policy`. */
export const hfOptionsSchema = z.object({
  /** The model directory (config.json, safetensors weights, tokenizer.json, chat template); relative to the working directory. */
  pretrained: z
    .string(needed('a Hugging Face policy needs policy.pretrained: the directory of a Llama or Qwen3 model'))
    .min(1)
    .transform((dir) => resolve(dir)),
  /** LoRA adapters to train; without, every weight trains. */
  lora: loraSchema.optional(),
  /** Tokens the agent fits each prompt and reply in (default: the model's positions, at most 16384). */
  contextLength: tfjsOptionsSchema.shape.contextLength,
  /** The tfjs backend, as for `tfjs`; `--backend` overrides it. */
  backend: tfjsOptionsSchema.shape.backend,
});

export type HfBackendOptions = PolicyOptions & z.output<typeof hfOptionsSchema>;

const FROM_SCRATCH =
  "sizes a model built from scratch; a pretrained model's shape is its config.json's; drop it";

/** Keys of the other backends that a pretrained model has no use for, and why. */
const refusedKeys = {
  size: FROM_SCRATCH,
  dModel: FROM_SCRATCH,
  layers: FROM_SCRATCH,
  heads: FROM_SCRATCH,
  vocabSize: "a pretrained model's vocabulary is its tokenizer.json's; drop it",
  tokenizerCorpusTasks:
    'trains a tokenizer from scratch; a pretrained model brings its tokenizer.json; drop it',
  prefixCacheBytes: 'the Hugging Face policy keeps no prefix cache; drop it',
  baseModel: 'a Hugging Face policy reads its model from policy.pretrained (a directory); drop it',
  loraRank: 'a Hugging Face policy takes policy.lora: { rank, alpha, targetModules }; drop it',
};

/** The positions of the model in `options.pretrained`, from its config.json. */
const modelPositions = (options: HfBackendOptions): number =>
  readHfConfigSync(options.pretrained).maxPositions;

/** Problems with the model directory: missing, not a directory, or a config.json the loader refuses (naming the file). */
function directoryProblems(options: HfBackendOptions): PolicyOptionsProblem[] {
  const dir = options.pretrained;
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) {
    return [
      { path: ['pretrained'], message: `${dir} is not a directory; give a Hugging Face model directory` },
    ];
  }
  let positions: number;
  try {
    positions = modelPositions(options);
  } catch (error) {
    if (!CheckpointError.isInstance(error)) throw error;
    return [{ path: ['pretrained'], message: (error as Error).message.split('\n')[0]! }];
  }
  if (options.contextLength !== undefined && options.contextLength > positions) {
    return [
      {
        path: ['contextLength'],
        message: `${options.contextLength} is more than the model's ${positions} positions (max_position_embeddings in ${join(dir, 'config.json')})`,
      },
    ];
  }
  return [];
}

/** SHA-256 of every config, tokenizer, template and weights file of the model directory, as `pretrained/<file>`. */
async function modelHashes(dir: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(json|jinja|safetensors)$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  for (const file of files) {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(join(dir, file))) hash.update(chunk as Buffer);
    hashes[`pretrained/${file}`] = hash.digest('hex');
  }
  return hashes;
}

/** Opens the model of `options` with its adapters (drawn from the policy's seed). */
function loadHfPolicy(options: HfBackendOptions, context: PolicyBackendContext): Promise<HfPolicy> {
  return HfPolicy.load(options.pretrained, {
    name: context.name,
    samplingSeed: context.samplingSeed,
    ...(options.lora === undefined ? {} : { lora: { ...options.lora, seed: options.seed } }),
    ...backendOption(options.backend),
  });
}

class HfRunPolicy extends DelegatingPolicy<HfPolicy> implements RunPolicy {
  constructor(
    inner: HfPolicy,
    private readonly options: HfBackendOptions,
    private readonly context: PolicyBackendContext,
  ) {
    super(inner);
  }
  get backendName(): string {
    return this.inner.backend.choice;
  }
  describe(): string {
    const { lora } = this.inner;
    const trains =
      lora === null ? 'every weight trained' : `LoRA rank ${lora.rank} on ${lora.targetModules.join(', ')}`;
    return `${this.inner.config.modelType} model ${this.inner.baseDir} (${trains}), vocabulary ${this.inner.tokenizer.vocabSize}`;
  }
  replyDatum(example: ReplyExample): Datum {
    return this.inner.replyDatum(example.prompt, example.response);
  }
  /** A second copy of the model, loaded with the state saved now (a temporary directory, removed after). */
  async freeze(): Promise<FrozenPolicy> {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-hf-reference-'));
    try {
      const state = join(dir, 'policy');
      await this.inner.saveState(state);
      const copy = await loadHfPolicy(this.options, {
        ...this.context,
        name: `${this.inner.name} (frozen at v${this.inner.version})`,
      });
      try {
        await copy.loadState(state);
      } catch (error) {
        copy.dispose();
        throw error;
      }
      return { policy: copy, dispose: async () => copy.dispose() };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  dispose(): void {
    this.inner.dispose();
  }
}

export const hfBackend: PolicyBackendDescriptor<HfBackendOptions> = {
  id: 'hf',
  description: 'a pretrained Hugging Face model (Llama, Qwen3) from a directory, trained in this process',
  title: 'Hugging Face',
  engine: 'the Hugging Face model',
  trainsOn: 'this process',
  optionsSchema: hfOptionsSchema,
  refusedKeys,
  offers: { choices: true, valueHead: false, entropy: true, localTraining: true, backendChoice: true },
  contextLength(options) {
    // An unreadable directory is reported by `problems`; the context then counts for nothing.
    let positions: number;
    try {
      positions = modelPositions(options);
    } catch {
      return MIN_CONTEXT_LENGTH;
    }
    return options.contextLength ?? Math.min(positions, keyLimits.contextLength);
  },
  problems: directoryProblems,
  async start(options, purpose) {
    const started = await startTfjsBackend(options.backend, purpose);
    return { ...started, line: `${started.line}; model ${options.pretrained}` };
  },
  async create(options, context) {
    context.log(`loading the pretrained model in ${options.pretrained}`);
    const policy = await loadHfPolicy(options, context);
    try {
      return {
        policy: new HfRunPolicy(policy, options, context),
        dataHashes: await modelHashes(options.pretrained),
      };
    } catch (error) {
      policy.dispose();
      throw error;
    }
  },
  async load(options, dir, context) {
    const policy = await loadHfPolicy(options, context);
    try {
      await policy.loadState(dir);
    } catch (error) {
      policy.dispose();
      throw error;
    }
    return new HfRunPolicy(policy, options, context);
  },
};
