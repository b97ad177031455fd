// A small Qwen3-shaped decoder config and random weights for it from a fixed seed, for the unit
// tests of the Hugging Face decoder (no Python, no files).
import { createRng } from '@pilotrl/core';
import { expectedTensors, type HfDecoderConfig } from './hf-config';
import type { HfWeights } from './model-dir';

export const tinyQwen3Config: HfDecoderConfig = {
  modelType: 'qwen3',
  vocabSize: 50,
  hiddenSize: 16,
  intermediateSize: 24,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 6,
  rmsNormEps: 1e-6,
  ropeTheta: 10000,
  maxPositions: 64,
  tieWordEmbeddings: true,
  attentionBias: false,
  mlpBias: false,
  qkNorm: true,
  bosTokenId: undefined,
  eosTokenIds: [],
};

/** Every tensor `config` needs, normal with deviation 0.3 around 0 (norm gains around 1). */
export function randomHfWeights(config: HfDecoderConfig, seed = 3): HfWeights {
  const rng = createRng(seed);
  const tensors = new Map<string, { shape: readonly number[]; values: Float32Array }>();
  for (const [name, shape] of expectedTensors(config)) {
    const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
    const centre = name.endsWith('norm.weight') ? 1 : 0;
    for (let i = 0; i < values.length; i++) values[i] = centre + rng.normal() * 0.3;
    tensors.set(name, { shape, values });
  }
  return { config, tensors };
}
