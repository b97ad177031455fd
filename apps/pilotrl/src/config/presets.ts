// Named curricula shipped with the CLI: `quick` (a full curriculum in minutes on a laptop CPU),
// `paper` (PilotRL's reference optimisation settings), `paper-ppo` (the same with a critic and GAE
// instead of GRPO's group baseline), `react-baseline` (no plans, outcome RL),
// `reproduce-alfworld` (the base of the reproduction on ALFWorld), `maze-quick`, `textcraft-quick`,
// `wordle-quick`, `babyai-quick` (quick's recipe on the other envs) and `mixture-quick` (the three at once).
import { NotFoundError } from '@pilotrl/core';
import { type CurriculumConfig, type CurriculumConfigInput, parseConfig } from './curriculum-config';

// Sized for about 20 minutes on 2 CPU cores. A model this small learns ALFWorld by choosing among
// the admissible commands (constrained decoding), with plans written in the env's plan-step
// vocabulary and trained by expert iteration in each stage (rollouts scored with the stage's
// rewards; the episodes they prefer kept and weighted, wins replayed without detours under the plan
// they were played with, lost episodes relabelled with the goal they reached; SFT on those, mixed
// with the oracle's demonstrations).
const expertIteration = { algorithm: 'expert-iteration', groupSize: 1, learningRate: 1e-3 } as const;

/** PilotRL's three stages, each trained by expert iteration with `size` iterations and tasks. */
const pilotrlStages = (size: { iterations: number; tasksPerIteration: number; learningRate?: number }) =>
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
  // 3,000 demonstrated tasks seen about twice each: with 300 seen 11 times the model memorises them
  // (SFT alone, 140 episodes a split: 22 / 24 wins of 300 tasks, 57 / 42 of 3,000 tasks and 3,000
  // steps). 2,000 steps and two iterations a stage keep `pnpm start` within 20 minutes on 2 cores.
  sft: { demonstrations: 3000, steps: 2000, batchSize: 32, learningRate: 3e-3, stepsPerIteration: 250 },
  // The stages go on at the rate SFT ends at (10% of 3e-3): at 1e-3 stage 1 lost 8 points pooled
  // against SFT, at 3e-4 one (one seed, 100 episodes a split; docs/results/stage-settings).
  stages: [...pilotrlStages({ iterations: 2, tasksPerIteration: 96, learningRate: 3e-4 })],
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

// The paper's curriculum with a critic instead of a group baseline: PPO on GAE advantages from a
// value head trained beside the policy. Group-relative baselines compare whole episodes of one task,
// which breaks down when trajectories are long and uneven in length; a critic credits each token
// from the returns that follow it, so groups can be smaller and tasks more varied per iteration.
const ppoStage = {
  ...paperStage,
  tasksPerIteration: 32,
  groupSize: 4,
  estimator: 'gae',
  epochs: 2,
  minibatches: 4,
} as const;
const paperPpo: CurriculumConfigInput = {
  ...paper,
  name: 'paper-ppo',
  policy: { ...paper.policy, valueHead: true },
  stages: [
    {
      kind: 'follow',
      iterations: 100,
      ...ppoStage,
      rewards: { outcome: 1, plan_adherence: 0.5, overlong: 1 },
    },
    { kind: 'plan', iterations: 100, ...ppoStage, rewards: { outcome: 1, plan_quality: 0.5, overlong: 1 } },
    { kind: 'joint', iterations: 100, ...ppoStage, rewards: { outcome: 1, overlong: 1 } },
  ],
};

const reactBaseline: CurriculumConfigInput = {
  ...quick,
  name: 'react-baseline',
  agent: { paradigm: 'react', prompt: 'view', actionSpace: 'choice' },
  stages: [
    {
      kind: 'joint',
      ...expertIteration,
      iterations: 6,
      tasksPerIteration: 96,
      learningRate: 3e-4,
      rewards: { outcome: 1 },
    },
  ],
};

// The base of `pilotrl reproduce` on ALFWorld: quick's model, agent and SFT, with 6 RL iterations
// of 48 tasks that each variant spends as its schedule says, and 200 evaluation episodes per split.
// Sized for 3 seeds × 7 variants in about 2.5 hours on 2 cores (the SFT of each paradigm and seed
// is trained once and shared by its variants).
const reproduceAlfworld: CurriculumConfigInput = {
  ...quick,
  name: 'reproduce-alfworld',
  stages: [...pilotrlStages({ iterations: 2, tasksPerIteration: 48, learningRate: 3e-4 })],
  eval: { episodes: 200, every: 1000 },
};

// The quick curricula of the paper's other environments: quick's model, choice actions and expert
// iteration stages, each agent set for its env and each sized for a few minutes on 2 cores.
// Maze and TextCraft write plans in their plan-step vocabularies (`go to 8, 6`; `get oak log`,
// `craft oak planks`), which offer no alternative plans, so stage 1 follows the oracle's alone;
// neither has a state view, so the view prompt is the goal and the latest observation.
const stagesOf = (size: { iterations: number; tasksPerIteration: number }) =>
  pilotrlStages(size).map((stage) => (stage.kind === 'follow' ? { ...stage, planCandidates: 1 } : stage));

const mazeQuick: CurriculumConfigInput = {
  ...quick,
  name: 'maze-quick',
  // The server's opening is the cell description alone, without the client's instructions.
  env: { id: 'maze', maxSteps: 15, options: { opening: 'server' } },
  policy: { ...quick.policy, contextLength: 256, tokenizerCorpusTasks: 10, vocabSize: 300 },
  agent: { ...quick.agent, maxPlanSteps: 8 },
  sft: { demonstrations: 10, steps: 300, batchSize: 32, learningRate: 3e-3, stepsPerIteration: 50 },
  stages: [...stagesOf({ iterations: 2, tasksPerIteration: 32 })],
  eval: { episodes: 100, every: 1000 },
};

const textcraftQuick: CurriculumConfigInput = {
  ...quick,
  name: 'textcraft-quick',
  env: { id: 'textcraft', maxSteps: 20 },
  policy: { ...quick.policy, tokenizerCorpusTasks: 100, vocabSize: 500 },
  sft: { demonstrations: 200, steps: 300, batchSize: 16, learningRate: 3e-3, stepsPerIteration: 50 },
  stages: stagesOf({ iterations: 2, tasksPerIteration: 24 }).map((stage) => ({
    ...stage,
    expertIteration: { sftSteps: 32, batchSize: 16 },
  })),
  eval: { episodes: 50, every: 1000 },
};

// Wordle has no plan steps, so its agent is ReAct; it needs its guesses and their feedback, so the
// compact conversation keeps the last 6 turns, with the 40 admissible words left out of the prompt
// (the choice still ranges over them) and the server's opening instead of the client's word list.
const wordleQuick: CurriculumConfigInput = {
  ...quick,
  name: 'wordle-quick',
  env: { id: 'wordle', maxSteps: 8, options: { opening: 'server' } },
  policy: { ...quick.policy, contextLength: 384, tokenizerCorpusTasks: 100, vocabSize: 400 },
  agent: {
    paradigm: 'react',
    prompt: 'compact',
    actionSpace: 'choice',
    listActions: false,
    historyWindow: 6,
  },
  sft: { demonstrations: 200, steps: 300, batchSize: 32, learningRate: 3e-3, stepsPerIteration: 50 },
  stages: [
    { kind: 'joint', ...expertIteration, iterations: 4, tasksPerIteration: 48, rewards: { outcome: 1 } },
  ],
  eval: { episodes: 100, every: 1000 },
};

// BabyAI in primitive commands (`turn left`, `move forward`, `toggle`, `pickup <object> <k>` of the
// object in front...), where chance is low: AgentGym's macros such as `go to red ball 1` let a random
// pick win more than half of the seen levels and a tenth of the unseen ones. The agent is ReAct (the
// plan-step vocabulary names macros, which this form does not offer) on the compact conversation of
// the last 3 turns: with the latest observation alone the policy cannot see that a step changed
// nothing, and repeats it (docs/experiments/textcraft-and-babyai-against-chance.md).
const babyaiQuick: CurriculumConfigInput = {
  ...quick,
  name: 'babyai-quick',
  env: { id: 'babyai', maxSteps: 40, options: { commands: 'primitive' } },
  policy: { ...quick.policy, contextLength: 768, tokenizerCorpusTasks: 100, vocabSize: 500 },
  agent: {
    paradigm: 'react',
    prompt: 'compact',
    actionSpace: 'choice',
    planRevision: 'never',
    historyWindow: 3,
  },
  sft: { demonstrations: 800, steps: 1000, batchSize: 16, learningRate: 3e-3, stepsPerIteration: 200 },
  stages: [
    {
      kind: 'joint',
      ...expertIteration,
      iterations: 4,
      tasksPerIteration: 32,
      expertIteration: { sftSteps: 32, batchSize: 16 },
      rewards: { outcome: 1 },
    },
  ],
  eval: { episodes: 60, every: 1000 },
};

// One policy on Maze, TextCraft and Wordle at once, as the paper trains on its mixture of envs:
// training tasks, demonstrations and the tokenizer corpus shared out by weight, success reported
// per env. Maze and TextCraft plan in their plan steps; Wordle, which has none, plays ReAct with
// its guess history, in every stage (stages 1 and 2 train the others' plans).
const mixtureQuick: CurriculumConfigInput = {
  ...quick,
  name: 'mixture-quick',
  env: {
    mixture: [
      { id: 'maze', weight: 1, maxSteps: 15, options: { opening: 'server' } },
      { id: 'textcraft', weight: 1, maxSteps: 20 },
      {
        id: 'wordle',
        weight: 1,
        maxSteps: 8,
        options: { opening: 'server' },
        agent: {
          paradigm: 'react',
          plan: 'free-text',
          prompt: 'compact',
          listActions: false,
          historyWindow: 6,
        },
      },
    ],
  },
  policy: { ...quick.policy, tokenizerCorpusTasks: 60, vocabSize: 500 },
  sft: { demonstrations: 150, steps: 450, batchSize: 16, learningRate: 3e-3, stepsPerIteration: 50 },
  stages: stagesOf({ iterations: 2, tasksPerIteration: 36 }).map((stage) => ({
    ...stage,
    expertIteration: { sftSteps: 32, batchSize: 16 },
  })),
  eval: { episodes: 40, every: 1000 },
};

export const presets: Readonly<Record<string, CurriculumConfigInput>> = {
  quick,
  paper,
  'paper-ppo': paperPpo,
  'react-baseline': reactBaseline,
  'reproduce-alfworld': reproduceAlfworld,
  'maze-quick': mazeQuick,
  'textcraft-quick': textcraftQuick,
  'wordle-quick': wordleQuick,
  'babyai-quick': babyaiQuick,
  'mixture-quick': mixtureQuick,
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
