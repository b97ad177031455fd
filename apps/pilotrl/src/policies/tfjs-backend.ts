// The `tfjs` policy backend: a small transformer trained in this process, its tokenizer trained on
// the text of the oracle's demonstrations. Its keys size the model and choose the tfjs device
// backend; it offers everything the curriculum can ask of a policy.
import { createHash } from 'node:crypto';
import {
  ConfigError,
  type Datum,
  type FrozenPolicy,
  type PolicyBackendContext,
  type PolicyBackendDescriptor,
  type PolicyBackendStart,
  type PolicyOptions,
  type ReplyExample,
  type RunPolicy,
} from '@pilotrl/core';
import {
  type BackendChoice,
  type BackendInfo,
  describeBackend,
  initBackend,
  sftDatum,
  type TfjsModelInfo,
  TfjsPolicy,
  Tokenizer,
} from '@pilotrl/policy-tfjs';
import { z } from 'zod';
import {
  keyLimits,
  MIN_CONTEXT_LENGTH,
  MIN_VOCAB_SIZE,
  type ModelShape,
  trainingMemoryProblem,
} from '../config/resource-bounds';
import { count } from '../config/schema-parts';
import { DelegatingPolicy } from './delegating-policy';

export const modelSizes = {
  tiny: { dModel: 32, layers: 1, heads: 2, contextLength: 256 },
  small: { dModel: 64, layers: 2, heads: 4, contextLength: 384 },
  base: { dModel: 128, layers: 4, heads: 4, contextLength: 512 },
} as const;

const DEFAULT_VOCAB_SIZE = 600;
/**
 * 64 MiB: quick's model keeps 1 KiB a prompt token, and a 16-episode rollout of its agent held at
 * most 44 MiB (bench/loop.ts); plans revised every turn, or a wider model, evict the oldest prompts.
 */
const DEFAULT_PREFIX_CACHE_BYTES = 64 * 2 ** 20;

/** The tfjs keys of `policy`. */
export const tfjsOptionsSchema = z.object({
  /** A named size, or explicit dimensions. */
  size: z.enum(Object.keys(modelSizes) as [keyof typeof modelSizes]).default('small'),
  dModel: count(keyLimits.dModel).optional(),
  layers: count(keyLimits.layers).optional(),
  heads: count(keyLimits.heads).optional(),
  contextLength: count(keyLimits.contextLength, MIN_CONTEXT_LENGTH).optional(),
  /** Tasks whose text (observations, oracle plans and actions) trains the tokenizer. */
  tokenizerCorpusTasks: count(keyLimits.tokenizerCorpusTasks).default(200),
  /** Tokens including the 11 special and 256 byte tokens. */
  vocabSize: count(keyLimits.vocabSize, MIN_VOCAB_SIZE).default(DEFAULT_VOCAB_SIZE),
  /**
   * The tfjs backend: `auto` takes the fastest that loads (tensorflow-gpu, tensorflow, wasm, cpu;
   * PILOTRL_TFJS_BACKEND sets it for `auto`); a name forces that one. `--backend` overrides it.
   */
  backend: z.enum(['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu']).default('auto'),
  /**
   * Bytes of prompt keys and values kept so that a choice prompt extending one scored before runs
   * only its new tokens (TfjsPolicy's `prefixCacheBytes`); 0 turns the cache off. Every rollout
   * starts with it empty, so episodes do not depend on what was played before.
   */
  prefixCacheBytes: z.number().int().nonnegative().default(DEFAULT_PREFIX_CACHE_BYTES),
});

export type TfjsBackendOptions = PolicyOptions & z.output<typeof tfjsOptionsSchema>;

/** The tfjs keys of `policy` (a tfjs policy's own; their defaults for another backend's). */
export const tfjsOptionsOf = (policy: PolicyOptions): TfjsBackendOptions => ({
  ...policy,
  ...tfjsOptionsSchema.parse(policy),
});

/** The model dimensions the tfjs keys of `policy` ask for, the named size overridden by explicit keys. */
export function modelDimensions(policy: PolicyOptions) {
  const options = tfjsOptionsSchema.parse(policy);
  const base = modelSizes[options.size];
  return {
    dModel: options.dModel ?? base.dModel,
    layers: options.layers ?? base.layers,
    heads: options.heads ?? base.heads,
    contextLength: options.contextLength ?? base.contextLength,
  };
}

/** The `backend` option of TfjsPolicy.create/load: absent for `auto`, so PILOTRL_TFJS_BACKEND still applies. */
export function backendOption(choice: 'auto' | BackendChoice): { backend?: BackendChoice } {
  return choice === 'auto' ? {} : { backend: choice };
}

/** A tokenizer of `options.vocabSize` tokens trained on `corpus`, and the corpus's SHA-256. */
export function trainTokenizer(
  options: TfjsBackendOptions,
  corpus: readonly string[],
): { tokenizer: Tokenizer; corpusHash: string } {
  const tokenizer = Tokenizer.train([...corpus], { vocabSize: options.vocabSize });
  return { tokenizer, corpusHash: createHash('sha256').update(JSON.stringify(corpus)).digest('hex') };
}

/** A freshly initialised model of the size `options` ask for, with `tokenizer`. */
export function createTfjsPolicy(
  options: TfjsBackendOptions,
  tokenizer: Tokenizer,
  context: PolicyBackendContext,
): Promise<TfjsPolicy> {
  const dims = modelDimensions(options);
  return TfjsPolicy.create({
    name: context.name,
    tokenizer,
    model: {
      dModel: dims.dModel,
      nLayers: dims.layers,
      nHeads: dims.heads,
      contextLength: dims.contextLength,
      seed: options.seed,
      valueHead: options.valueHead,
    },
    samplingSeed: context.samplingSeed,
    prefixCacheBytes: options.prefixCacheBytes,
    ...backendOption(options.backend),
  });
}

/**
 * Why training refuses the cpu backend (plain JavaScript): a training step there costs minutes
 * where native TensorFlow takes a second, and its memory grows by gigabytes. It still evaluates.
 */
function cpuTrainingRefusal(info: BackendInfo): string {
  const skipped = Object.entries(info.skipped).map(([name, why]) => `${name}: ${why}`);
  return (
    'the tfjs cpu backend (plain JavaScript) is too slow and memory-hungry to train on; train on ' +
    "tensorflow or wasm (policy.backend or --backend; wasm needs no native library), and keep cpu for 'pilotrl eval'" +
    (skipped.length === 0 ? '' : ` (skipped: ${skipped.join('; ')})`)
  );
}

/**
 * Starts the tfjs device backend `choice` (refusing cpu for training): the line saying which one
 * runs, and TensorFlow's version and the backends skipped, for the run's manifest.
 */
export async function startTfjsBackend(
  choice: 'auto' | BackendChoice,
  purpose: 'train' | 'evaluate',
): Promise<PolicyBackendStart> {
  const info = await initBackend(backendOption(choice));
  if (purpose === 'train' && info.choice === 'cpu') throw new ConfigError(cpuTrainingRefusal(info));
  return {
    line: `backend ${describeBackend(info)}`,
    platform: {
      ...(info.tensorflowVersion === undefined ? {} : { tensorflowVersion: info.tensorflowVersion }),
      backendSkipped: info.skipped,
    },
  };
}

class TfjsRunPolicy extends DelegatingPolicy<TfjsPolicy> implements RunPolicy {
  get backendName(): string {
    return this.inner.backend.choice;
  }
  /** The model's shape, which value-head checks read (`--scorer value`). */
  get model(): TfjsModelInfo {
    return this.inner.model;
  }
  describe(): string {
    return `${this.inner.parameterCount()} parameters, vocabulary ${this.inner.tokenizer.vocabSize}`;
  }
  replyDatum(example: ReplyExample): Datum {
    return sftDatum(this.inner.tokenizer, example);
  }
  async freeze(): Promise<FrozenPolicy> {
    const copy = this.inner.snapshot();
    return { policy: copy, dispose: async () => copy.dispose() };
  }
  dispose(): void {
    this.inner.dispose();
  }
}

export const tfjsBackend: PolicyBackendDescriptor<TfjsBackendOptions> = {
  id: 'tfjs',
  description: 'a small transformer trained in this process (native TensorFlow, wasm or cpu)',
  title: 'tfjs',
  engine: 'the tfjs model',
  trainsOn: 'this process',
  optionsSchema: tfjsOptionsSchema,
  offers: { choices: true, valueHead: true, entropy: true, localTraining: true, backendChoice: true },
  contextLength: (options) => modelDimensions(options).contextLength,
  problems(options) {
    const dims = modelDimensions(options);
    const problems = [];
    if (options.dModel !== undefined && options.heads !== undefined && options.dModel % options.heads !== 0) {
      problems.push({
        path: ['heads'],
        message: `dModel ${options.dModel} is not divisible by heads ${options.heads}`,
      });
    }
    const { vocabSize, valueHead } = options;
    const model: ModelShape = { ...dims, vocabSize, valueHead };
    const baseline: ModelShape = { ...modelSizes[options.size], vocabSize: DEFAULT_VOCAB_SIZE, valueHead };
    const memory = trainingMemoryProblem(model, baseline);
    if (memory !== undefined) problems.push({ path: [memory.key], message: memory.message });
    return problems;
  },
  start: (options, purpose) => startTfjsBackend(options.backend, purpose),
  async create(options, context) {
    context.log(`training the tokenizer on oracle demonstrations of ${options.tokenizerCorpusTasks} tasks`);
    const corpus = await context.demonstrationTexts(options.tokenizerCorpusTasks);
    const { tokenizer, corpusHash } = trainTokenizer(options, corpus);
    const policy = await createTfjsPolicy(options, tokenizer, context);
    return { policy: new TfjsRunPolicy(policy), dataHashes: { tokenizerCorpus: corpusHash } };
  },
  async load(options, dir, context) {
    const policy = await TfjsPolicy.load(dir, {
      name: context.name,
      samplingSeed: context.samplingSeed,
      prefixCacheBytes: options.prefixCacheBytes,
      ...backendOption(options.backend),
    });
    if (options.valueHead && !policy.model.config.valueHead) {
      policy.dispose();
      throw new ConfigError(`policy.valueHead: the checkpoint ${dir} was built without a value head`);
    }
    return new TfjsRunPolicy(policy);
  },
};
