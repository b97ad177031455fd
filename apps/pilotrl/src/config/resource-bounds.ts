// What a curriculum asks of the machine, estimated from its config alone, and the bounds it must
// stay within. A run too large for any machine is refused at load, naming the key to change,
// instead of failing minutes in (a RangeError while the model is built, V8 out of memory in the
// middle of an iteration). The bounds are constants, not read from the machine, so a config is
// accepted or refused the same way everywhere.

const GiB = 2 ** 30;

/** Upper bounds of single keys: generous for the models and runs this CLI trains, far below what breaks one. */
export const keyLimits = {
  dModel: 8192,
  layers: 128,
  heads: 256,
  contextLength: 16_384,
  vocabSize: 65_536,
  tokenizerCorpusTasks: 50_000,
  maxSteps: 1000,
  demonstrations: 50_000,
  /** `sft.steps` and `expertIteration.sftSteps`. */
  sftSteps: 10_000_000,
  /** `sft.batchSize` and `expertIteration.batchSize`. */
  batchSize: 4096,
  iterations: 1_000_000,
  tasksPerIteration: 100_000,
  groupSize: 1024,
  epochs: 100,
  planCandidates: 64,
  evalEpisodes: 100_000,
} as const;

/** The smallest vocabulary a tokenizer has: its 11 special tokens and the 256 byte tokens. */
export const MIN_VOCAB_SIZE = 11 + 256;
/** The shortest context the model takes: one token and the next. */
export const MIN_CONTEXT_LENGTH = 2;

/** Training state and activations must fit in this (a large workstation, or one accelerator). */
export const TRAINING_MEMORY_LIMIT = 16 * GiB;
/** The episodes of one iteration (or one eval split) are held at once, in Node's heap, whose default is at most about 4 GiB. */
export const EPISODE_MEMORY_LIMIT = 4 * GiB;

/** The transformer as `TransformerModel` of `@pilotrl/policy-tfjs` builds it, in the config's names. */
export interface ModelShape {
  vocabSize: number;
  dModel: number;
  layers: number;
  heads: number;
  contextLength: number;
  valueHead: boolean;
}

/** Width of the MLP as a multiple of dModel (the model's default, which the CLI keeps). */
const MLP_RATIO = 4;

/**
 * Weights of the model: tied token embedding, learned positions, pre-LayerNorm blocks with fused
 * QKV and a 4×-wide MLP, a final LayerNorm, and the optional value head. Exact for the configured
 * vocabulary; a tokenizer whose corpus runs out of merges stops short of it, never above.
 */
export function parameterCount(shape: ModelShape): number {
  const d = shape.dModel;
  const f = MLP_RATIO * d;
  const layerNorms = 4 * d;
  const attention = d * 3 * d + 3 * d + d * d + d;
  const mlp = d * f + f + f * d + d;
  const block = layerNorms + attention + mlp;
  const head = shape.valueHead ? d + 1 : 0;
  return shape.vocabSize * d + shape.contextLength * d + shape.layers * block + 2 * d + head;
}

/** TfjsPolicy trains a batch in passes of at most this many tokens (its `maxTrainTokens` default); a pass holds at least one whole sequence. */
const TRAIN_PASS_TOKENS = 8192;
/**
 * Floats the autodiff tape keeps per token and layer, per unit of dModel: two LayerNorms, QKV and
 * its split into heads, the attention output and projection, the MLP and its GELU terms (about 56),
 * rounded up.
 */
const ACTIVATION_FLOATS_PER_WIDTH = 64;
/** Weights, gradients and the two AdamW moments, each a float32 per parameter. */
const STATE_BYTES_PER_PARAMETER = 4 * 4;

export interface TrainingMemory {
  parameters: number;
  /** Weights, gradients and AdamW moments. */
  stateBytes: number;
  /** Activations of one training pass at full context. */
  activationBytes: number;
  totalBytes: number;
}

/**
 * Memory of a training step: the parameters × 16 bytes of state, plus the activations of one pass
 * of max(8192, contextLength) tokens at 4 bytes a float, each token keeping per layer 64 × dModel
 * floats and 3 × heads × contextLength attention scores, and 4 × vocabSize floats of logits.
 */
export function trainingMemory(shape: ModelShape): TrainingMemory {
  const parameters = parameterCount(shape);
  const stateBytes = parameters * STATE_BYTES_PER_PARAMETER;
  const passTokens = Math.max(TRAIN_PASS_TOKENS, shape.contextLength);
  const perLayer = ACTIVATION_FLOATS_PER_WIDTH * shape.dModel + 3 * shape.heads * shape.contextLength;
  const perToken = shape.layers * perLayer + 4 * shape.vocabSize;
  const activationBytes = 4 * passTokens * perToken;
  return { parameters, stateBytes, activationBytes, totalBytes: stateBytes + activationBytes };
}

/**
 * Bytes an episode turn holds per token of context: its generations keep token ids, loss mask and
 * logprobs as arrays of JS numbers (8 bytes each), and the training datums built from them copy them.
 */
const HELD_BYTES_PER_TOKEN = 64;

/** Memory of `turns` turns held at once, each counted at the full context. */
export function episodeMemoryBytes(turns: number, contextLength: number): number {
  return turns * contextLength * HELD_BYTES_PER_TOKEN;
}

/** A key of the config and what is wrong with it. */
export interface ResourceProblem {
  path: (string | number)[];
  message: string;
}

/** What the resource checks read from a config: the model, what it defaults to, and the run's sizes. */
export interface RunSize {
  model: ModelShape;
  /** Whether this process trains the model (a tfjs policy); a Tinker server holds its own. */
  trainsLocally: boolean;
  /** The model of the config's named size and the default vocabulary: what each explicit key overrides. */
  baseline: ModelShape;
  maxSteps: number;
  stages: readonly { tasksPerIteration: number; groupSize: number }[];
  evalEpisodes: number;
}

const modelKeys = ['dModel', 'layers', 'heads', 'contextLength', 'vocabSize'] as const;

/** The training memory of a model this process trains, when over the limit: the key to lower (of `policy`) and why. */
export function trainingMemoryProblem(
  model: ModelShape,
  baseline: ModelShape,
): { key: (typeof modelKeys)[number]; message: string } | undefined {
  const memory = trainingMemory(model);
  if (memory.totalBytes <= TRAINING_MEMORY_LIMIT) return undefined;
  const key = heaviestModelKey({ model, baseline });
  const others = modelKeys.filter((k) => k !== key).map((k) => `${k} ${model[k]}`);
  return {
    key,
    message:
      `${model[key]} (with ${others.join(', ')}) implies ${formatCount(memory.parameters)} parameters ` +
      `and about ${formatBytes(memory.totalBytes)} to train (weights, gradients and AdamW moments ` +
      `${formatBytes(memory.stateBytes)}, activations ${formatBytes(memory.activationBytes)}); ` +
      `the limit is ${formatBytes(TRAINING_MEMORY_LIMIT)}`,
  };
}

/** Problems with the episodes held per iteration and per eval split, at the policy's context length. */
export function episodeMemoryProblems(
  run: Pick<RunSize, 'maxSteps' | 'stages' | 'evalEpisodes'> & { contextLength: number },
): ResourceProblem[] {
  const problems: ResourceProblem[] = [];
  const { contextLength } = run;
  const held = (turns: number) =>
    `about ${formatBytes(episodeMemoryBytes(turns, contextLength))} held at policy.contextLength ` +
    `${contextLength}; the limit is ${formatBytes(EPISODE_MEMORY_LIMIT)}`;
  run.stages.forEach((stage, index) => {
    const turns = stage.tasksPerIteration * stage.groupSize * run.maxSteps;
    if (episodeMemoryBytes(turns, contextLength) <= EPISODE_MEMORY_LIMIT) return;
    const key = stage.groupSize > stage.tasksPerIteration ? 'groupSize' : 'tasksPerIteration';
    const other =
      key === 'groupSize' ? `tasksPerIteration ${stage.tasksPerIteration}` : `groupSize ${stage.groupSize}`;
    problems.push({
      path: ['stages', index, key],
      message: `${stage[key]} × ${other} × env.maxSteps ${run.maxSteps} = ${formatCount(turns)} turns per iteration, ${held(turns)}`,
    });
  });
  const evalTurns = run.evalEpisodes * run.maxSteps;
  if (episodeMemoryBytes(evalTurns, contextLength) > EPISODE_MEMORY_LIMIT) {
    problems.push({
      path: ['eval', 'episodes'],
      message: `${run.evalEpisodes} × env.maxSteps ${run.maxSteps} = ${formatCount(evalTurns)} turns per split, ${held(evalTurns)}`,
    });
  }
  return problems;
}

/** Problems with what a config implies: training memory, and the episodes held per iteration and per eval split. */
export function resourceProblems(run: RunSize): ResourceProblem[] {
  const training = run.trainsLocally ? trainingMemoryProblem(run.model, run.baseline) : undefined;
  return [
    ...(training === undefined ? [] : [{ path: ['policy', training.key], message: training.message }]),
    ...episodeMemoryProblems({ ...run, contextLength: run.model.contextLength }),
  ];
}

/** The model key whose return to its baseline value lowers the training memory most. */
function heaviestModelKey(run: Pick<RunSize, 'model' | 'baseline'>): (typeof modelKeys)[number] {
  let best: (typeof modelKeys)[number] = 'dModel';
  let lowest = Number.POSITIVE_INFINITY;
  for (const key of modelKeys) {
    if (run.model[key] <= run.baseline[key]) continue;
    const bytes = trainingMemory({ ...run.model, [key]: run.baseline[key] }).totalBytes;
    if (bytes < lowest) {
      lowest = bytes;
      best = key;
    }
  }
  return best;
}

/** 158,464 below a million, 2.4e13 above. */
export function formatCount(value: number): string {
  return value < 1e6 ? value.toLocaleString('en-US') : value.toExponential(1).replace('e+', 'e');
}

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'];

/** Bytes in binary units: 16 GiB, 1.5 TiB. */
export function formatBytes(bytes: number): string {
  const exponent = Math.min(byteUnits.length - 1, Math.max(0, Math.floor(Math.log2(bytes) / 10)));
  const value = bytes / 2 ** (10 * exponent);
  return `${value < 10 && exponent > 0 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value)} ${byteUnits[exponent]}`;
}
