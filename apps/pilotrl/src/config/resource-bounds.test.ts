import {
  parameterCount as modelParameterCount,
  SPECIAL_TOKENS,
  TfjsPolicy,
  Tokenizer,
} from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import {
  EPISODE_MEMORY_LIMIT,
  episodeMemoryBytes,
  formatBytes,
  formatCount,
  MIN_VOCAB_SIZE,
  type ModelShape,
  parameterCount,
  resourceProblems,
  TRAINING_MEMORY_LIMIT,
  trainingMemory,
} from './resource-bounds';

const quickModel: ModelShape = {
  vocabSize: 400,
  dModel: 64,
  layers: 2,
  heads: 4,
  contextLength: 512,
  valueHead: false,
};
const small: ModelShape = { ...quickModel, contextLength: 384, vocabSize: 600 };

describe('resource estimates', () => {
  it('counts the parameters of the policy model exactly', () => {
    expect(parameterCount(quickModel)).toBe(158_464);
    for (const shape of [
      quickModel,
      { ...quickModel, valueHead: true },
      { vocabSize: 1200, dModel: 128, layers: 4, heads: 4, contextLength: 1024, valueHead: false },
      { vocabSize: 300, dModel: 24, layers: 3, heads: 3, contextLength: 40, valueHead: true },
    ]) {
      const { layers: nLayers, heads: nHeads, ...rest } = shape;
      expect(parameterCount(shape)).toBe(modelParameterCount({ ...rest, nLayers, nHeads }));
    }
  });

  it('matches the weights of a real policy', async () => {
    const tokenizer = Tokenizer.train(['open the drawer', 'take the key from the drawer'], {
      vocabSize: 280,
    });
    for (const shape of [
      { ...quickModel, vocabSize: tokenizer.vocabSize },
      { vocabSize: tokenizer.vocabSize, dModel: 24, layers: 3, heads: 3, contextLength: 40, valueHead: true },
    ]) {
      const policy = await TfjsPolicy.create({
        tokenizer,
        backend: 'cpu',
        model: {
          dModel: shape.dModel,
          nLayers: shape.layers,
          nHeads: shape.heads,
          contextLength: shape.contextLength,
          valueHead: shape.valueHead,
        },
      });
      try {
        expect(parameterCount(shape)).toBe(policy.parameterCount());
      } finally {
        policy.dispose();
      }
    }
  });

  it('takes the smallest vocabulary from the tokenizer', () => {
    expect(MIN_VOCAB_SIZE).toBe(SPECIAL_TOKENS.length + 256);
  });

  it('estimates training memory as state plus the activations of one pass', () => {
    const memory = trainingMemory(quickModel);
    expect(memory.stateBytes).toBe(158_464 * 16);
    // 8192 tokens × (2 layers × (64·64 + 3·4·512) + 4·400) floats × 4 bytes.
    expect(memory.activationBytes).toBe(8192 * (2 * (64 * 64 + 3 * 4 * 512) + 4 * 400) * 4);
    expect(memory.totalBytes).toBe(memory.stateBytes + memory.activationBytes);
    expect(episodeMemoryBytes(2400, 512)).toBe(2400 * 512 * 64);
  });

  it('names the model key whose size is responsible', () => {
    const run = { baseline: small, trainsLocally: true, maxSteps: 30, stages: [], evalEpisodes: 50 };
    const wide = resourceProblems({ ...run, model: { ...small, dModel: 8192, layers: 128 } });
    expect(wide).toHaveLength(1);
    expect(wide[0]!.path).toEqual(['policy', 'dModel']);
    expect(wide[0]!.message).toBe(
      '8192 (with layers 128, heads 4, contextLength 384, vocabSize 600) implies 1.0e11 parameters and about 3.5 TiB to train (weights, gradients and AdamW moments 1.5 TiB, activations 2 TiB); the limit is 16 GiB',
    );
    const long = resourceProblems({ ...run, model: { ...small, contextLength: 16_384 } });
    expect(long.map((p) => p.path)).toEqual([['policy', 'contextLength']]);
    expect(resourceProblems({ ...run, model: small })).toEqual([]);
    // A model a server trains (Tinker) is not this machine's to hold.
    expect(resourceProblems({ ...run, trainsLocally: false, model: { ...small, dModel: 8192 } })).toEqual([]);
  });

  it('names the stage key and eval size that hold too many turns', () => {
    const problems = resourceProblems({
      model: small,
      trainsLocally: true,
      baseline: small,
      maxSteps: 50,
      stages: [
        { tasksPerIteration: 8, groupSize: 16 },
        { tasksPerIteration: 100_000, groupSize: 4 },
        { tasksPerIteration: 4, groupSize: 256 },
      ],
      evalEpisodes: 100_000,
    });
    expect(problems.map((p) => p.path)).toEqual([
      ['stages', 1, 'tasksPerIteration'],
      ['eval', 'episodes'],
    ]);
    expect(problems[0]!.message).toBe(
      '100000 × groupSize 4 × env.maxSteps 50 = 2.0e7 turns per iteration, about 458 GiB held at policy.contextLength 384; the limit is 4 GiB',
    );
    const group = resourceProblems({
      model: small,
      trainsLocally: true,
      baseline: small,
      maxSteps: 1000,
      stages: [{ tasksPerIteration: 4, groupSize: 1024 }],
      evalEpisodes: 1,
    });
    expect(group.map((p) => p.path)).toEqual([['stages', 0, 'groupSize']]);
  });

  it('formats counts and bytes for one-line messages', () => {
    expect(formatCount(158_464)).toBe('158,464');
    expect(formatCount(4e12)).toBe('4.0e12');
    expect(formatBytes(TRAINING_MEMORY_LIMIT)).toBe('16 GiB');
    expect(formatBytes(EPISODE_MEMORY_LIMIT)).toBe('4 GiB');
    expect(formatBytes(1.5 * 2 ** 40)).toBe('1.5 TiB');
    expect(formatBytes(512)).toBe('512 B');
  });
});
