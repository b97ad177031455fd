// Named curricula shipped with the CLI: `quick` (a full curriculum in minutes on a laptop CPU),
// `paper` (PilotRL's reference optimisation settings), `react-baseline` (no plans, outcome RL) and
// `reproduce-alfworld` (the base of the reproduction on ALFWorld).
import { NotFoundError } from '@pilotrl/core';
import { type CurriculumConfig, type CurriculumConfigInput, parseConfig } from './config';

// Sized for about 20 minutes on 2 CPU cores. A model this small learns ALFWorld by choosing among
// the admissible commands (constrained decoding), with plans written in the env's plan-step
// vocabulary and trained by expert iteration in each stage (rollouts; wins replayed without
// detours, lost episodes relabelled with the goal they reached; SFT on those, mixed with the
// oracle's demonstrations).
const expertIteration = { algorithm: 'expert-iteration', groupSize: 1, learningRate: 1e-3 } as const;

/** PilotRL's three stages, each trained by expert iteration with `size` iterations and tasks. */
const pilotrlStages = (size: { iterations: number; tasksPerIteration: number }) =>
  [
    {
      kind: 'follow',
      ...expertIteration,
      ...size,
      planCandidates: 3,
      rewards: { outcome: 1, plan_adherence: 0.5 },
    },
    { kind: 'plan', ...expertIteration, ...size, rewards: { outcome: 1, plan_quality: 0.5 } },
    { kind: 'joint', ...expertIteration, ...size, rewards: { outcome: 1 } },
  ] as const;
const quick: CurriculumConfigInput = {
  name: 'quick',
  seed: 1,
  env: { id: 'alfworld', maxSteps: 25 },
  policy: {
    size: 'small',
    dModel: 64,
    layers: 2,
    heads: 4,
    contextLength: 512,
    tokenizerCorpusTasks: 100,
    vocabSize: 400,
    seed: 1,
  },
  agent: {
    paradigm: 'adaplan',
    prompt: 'view',
    actionSpace: 'choice',
    plan: 'steps',
    planRevision: 'never',
    maxPlanSteps: 6,
  },
  sft: { demonstrations: 300, steps: 1200, batchSize: 32, learningRate: 3e-3, stepsPerIteration: 100 },
  stages: [...pilotrlStages({ iterations: 3, tasksPerIteration: 96 })],
  // Evaluations at the end of each phase only: 100 episodes per split cost about a training iteration.
  eval: { episodes: 100, every: 1000 },
  checkpoint: { every: 3, keep: 2 },
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
  agent: { paradigm: 'react', prompt: 'view', actionSpace: 'choice' },
  stages: [
    { kind: 'joint', ...expertIteration, iterations: 9, tasksPerIteration: 96, rewards: { outcome: 1 } },
  ],
};

// The base of `pilotrl reproduce` on ALFWorld: quick's model, agent and SFT, with 6 RL iterations
// of 48 tasks that each variant spends as its schedule says, and 200 evaluation episodes per split.
// Sized for 3 seeds × 7 variants in about 2.5 hours on 2 cores (the SFT of each paradigm and seed
// is trained once and shared by its variants).
const reproduceAlfworld: CurriculumConfigInput = {
  ...quick,
  name: 'reproduce-alfworld',
  stages: [...pilotrlStages({ iterations: 2, tasksPerIteration: 48 })],
  eval: { episodes: 200, every: 1000 },
};

export const presets: Readonly<Record<string, CurriculumConfigInput>> = {
  quick,
  paper,
  'react-baseline': reactBaseline,
  'reproduce-alfworld': reproduceAlfworld,
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
