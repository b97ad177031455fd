// Pieces of the rl-vs-sft experiment: the data (oracle demonstrations, held-out evaluation tasks),
// evaluation with Wilson intervals, one SFT step on a random batch, and CPU-time and log helpers.
import {
  type ChatMessage,
  type Datum,
  type Episode,
  formatPercent,
  type Rng,
  type TaskRef,
  wilsonInterval,
} from '@pilotrl/core';
import { linearWarmup, sftStep } from '@pilotrl/optim';
import { type SftExample, sftDatum, type TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { demonstrations, play, taskSource } from './alfworld';

export const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
export const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
/** The fraction of `episodes` won. */
export const winRate = (episodes: readonly Episode[]) =>
  episodes.filter((e) => e.won).length / episodes.length;

export interface DataOptions {
  /** Train tasks with oracle demonstrations (the SFT data; RL draws its tasks from them too). */
  demoTasks: number;
  /** Evaluation tasks per split (valid_seen and valid_unseen from 0). */
  evalPerSplit: number;
  maxSteps: number;
  vocabSize: number;
  contextLength: number;
}

export const fullData: DataOptions = {
  demoTasks: 300,
  evalPerSplit: 100,
  maxSteps: 25,
  vocabSize: 400,
  contextLength: 512,
};

/** The bench's policy: a d64, 2-layer tfjs transformer (158K parameters with its tokenizer). */
export const benchModel = { dModel: 64, nLayers: 2, nHeads: 4, contextLength: 512 } as const;

/** The bench's SFT from scratch: batch 32, lr 3e-3 after a linear warm-up, one named rng stream. */
export const benchSft = {
  batchSize: 32,
  learningRate: 3e-3,
  warmupSteps: 20,
  rng: 'rl-vs-sft/start',
} as const;

/** The learning rate of SFT step `step` (from 0) from scratch: linear warm-up, then constant. */
export const warmedUpRate = linearWarmup({ peak: benchSft.learningRate, warmupSteps: benchSft.warmupSteps });

export type BenchData = Awaited<ReturnType<typeof loadData>>;

/** SFT datums of demonstration steps, leaving out those that do not fit the context. */
export const exampleDatums = (demos: readonly SftExample[], tokenizer: Tokenizer, contextLength = 512) =>
  demos.map((d) => sftDatum(tokenizer, d)).filter((d) => d.tokenIds.length < contextLength);

/** The same tasks and demonstrations in every process; a tokenizer is trained unless given. */
export async function loadData(tokenizer?: Tokenizer, options: DataOptions = fullData) {
  const trainTasks = await taskSource.tasks('train', { limit: options.demoTasks });
  const demos = await demonstrations(trainTasks, options.maxSteps);
  const heldOut = async (offset: number, perSplit: number) => [
    ...(await taskSource.tasks('valid_seen', { offset, limit: perSplit })),
    ...(await taskSource.tasks('valid_unseen', { offset, limit: perSplit })),
  ];
  const vocabulary =
    tokenizer ??
    Tokenizer.train(
      demos.flatMap((d) => [
        (d.prompt as readonly ChatMessage[]).map((m) => m.content).join('\n'),
        d.response as string,
      ]),
      { vocabSize: options.vocabSize },
    );
  const datums = exampleDatums(demos, vocabulary, options.contextLength);
  return {
    trainTasks,
    datums,
    tokenizer: vocabulary,
    evalTasks: await heldOut(0, options.evalPerSplit),
  };
}

export interface Evaluation {
  successes: number;
  episodes: number;
  rate: number;
  ci95: { low: number; high: number };
  perSplit: Record<string, number>;
}

/**
 * Success over `tasks`, one episode each: greedy by default, or sampled at `temperature` with a
 * fixed seed (the policy RL optimises is the sampled one; greedy decoding of a policy that sees no
 * history can cycle through the same prompt until the step limit).
 */
export async function evaluate(
  policy: TfjsPolicy,
  tasks: readonly TaskRef[],
  maxSteps = 25,
  temperature = 0,
): Promise<Evaluation> {
  const episodes = await play(policy, tasks, { groupSize: 1, temperature, maxSteps, seed: 4242 });
  const successes = episodes.filter((e) => e.won).length;
  const perSplit: Record<string, number> = {};
  for (const split of new Set(tasks.map((t) => t.split))) {
    const own = episodes.filter((e) => e.split === split);
    perSplit[split] = winRate(own);
  }
  const { rate, low, high } = wilsonInterval(successes, episodes.length);
  return { successes, episodes: episodes.length, rate, ci95: { low, high }, perSplit };
}

export const evalString = (e: Evaluation) =>
  `${formatPercent(e.rate)} [${formatPercent(e.ci95.low)}, ${formatPercent(e.ci95.high)}] (${e.successes}/${e.episodes}; ${Object.entries(
    e.perSplit,
  )
    .map(([split, rate]) => `${split} ${formatPercent(rate)}`)
    .join(', ')})`;

export interface SftSettings {
  batchSize: number;
  learningRate: number;
}

/** The library's SFT step on a batch drawn with replacement from `datums`; returns the tokens read. */
export async function randomBatchSftStep(
  policy: TfjsPolicy,
  datums: readonly Datum[],
  rng: Rng,
  settings: SftSettings,
): Promise<number> {
  const batch = Array.from({ length: settings.batchSize }, () => rng.pick(datums));
  return (await sftStep(policy, batch, { learningRate: settings.learningRate })).tokens;
}
