// Named curricula shipped with the CLI: `quick` (a full curriculum in minutes on a laptop CPU),
// `paper` (PilotRL's reference optimisation settings) and `react-baseline` (no plans, outcome RL).
import { NotFoundError } from '@pilotrl/core';
import { type CurriculumConfig, type CurriculumConfigInput, parseConfig } from './config';

// Sized to finish in under 20 minutes on 2 CPU cores: every figure here trades learning for time.
const quickStage = { iterations: 2, tasksPerIteration: 2, groupSize: 4, learningRate: 3e-4 } as const;
const quick: CurriculumConfigInput = {
  name: 'quick',
  seed: 1,
  env: { id: 'alfworld', maxSteps: 30 },
  policy: { size: 'small', contextLength: 512, tokenizerCorpusTasks: 60, vocabSize: 800, seed: 1 },
  agent: {
    paradigm: 'adaplan',
    prompt: 'compact',
    listActions: false,
    planRevision: 'never',
    historyWindow: 2,
  },
  sft: { demonstrations: 100, steps: 240, batchSize: 16, learningRate: 3e-3, stepsPerIteration: 40 },
  stages: [
    { kind: 'follow', ...quickStage, rewards: { outcome: 1, plan_adherence: 0.5 } },
    { kind: 'plan', ...quickStage, rewards: { outcome: 1, plan_quality: 0.5 } },
    { kind: 'joint', ...quickStage, rewards: { outcome: 1 } },
  ],
  // Evaluations at the end of each phase only: they cost as much as training iterations.
  eval: { episodes: 8, every: 1000 },
  checkpoint: { every: 2, keep: 2 },
};

/** PilotRL's reference optimisation: GRPO, group 16, clip 0.2, dual-clip 3.0, no KL, token-mean, overlong penalty. */
const paperLoss = { clipLow: 0.2, clipHigh: 0.2, dualClip: 3, aggregation: 'token-mean', klCoef: 0 } as const;
const paperStage = {
  tasksPerIteration: 8,
  groupSize: 16,
  estimator: 'grpo',
  loss: paperLoss,
  learningRate: 1e-4,
  overlongBuffer: 16,
} as const;

const paper: CurriculumConfigInput = {
  name: 'paper',
  seed: 1,
  env: { id: 'alfworld', maxSteps: 50 },
  policy: { size: 'base', contextLength: 1024, tokenizerCorpusTasks: 500, vocabSize: 1200, seed: 1 },
  // The paper's agents see the admissible commands; the compact template keeps them within our context.
  agent: {
    paradigm: 'adaplan',
    prompt: 'compact',
    listActions: true,
    planRevision: 'every-turn',
    historyWindow: 3,
  },
  sft: { demonstrations: 2000, steps: 2400, batchSize: 32, learningRate: 2e-3 },
  stages: [
    {
      kind: 'follow',
      iterations: 100,
      ...paperStage,
      rewards: { outcome: 1, plan_adherence: 0.5, overlong: 1 },
    },
    { kind: 'plan', iterations: 100, ...paperStage, rewards: { outcome: 1, plan_quality: 0.5, overlong: 1 } },
    { kind: 'joint', iterations: 100, ...paperStage, rewards: { outcome: 1, overlong: 1 } },
  ],
  eval: { episodes: 200, every: 20 },
  checkpoint: { every: 10, keep: 3 },
};

const reactBaseline: CurriculumConfigInput = {
  ...quick,
  name: 'react-baseline',
  agent: { paradigm: 'react', prompt: 'compact', listActions: false, historyWindow: 2 },
  stages: [
    {
      kind: 'joint',
      iterations: 9,
      tasksPerIteration: 4,
      groupSize: 4,
      learningRate: 3e-4,
      rewards: { outcome: 1 },
    },
  ],
};

export const presets: Readonly<Record<string, CurriculumConfigInput>> = {
  quick,
  paper,
  'react-baseline': reactBaseline,
};

/** The validated preset `name`, or a NotFoundError listing the presets. */
export function presetConfig(name: string): CurriculumConfig {
  const preset = presets[name];
  if (preset === undefined) {
    throw new NotFoundError(
      `Unknown preset "${name}". Presets: ${Object.keys(presets).join(', ')}; or give a .yaml/.json file`,
    );
  }
  return parseConfig(preset, `preset "${name}"`);
}
