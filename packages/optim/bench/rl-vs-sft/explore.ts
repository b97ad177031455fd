// One RL configuration (or continued SFT, `--arm=sft`) from a checkpoint, with held-out
// evaluations along the way: the quick loop for trying variants before a full rl-vs-sft run
// (which only evaluates at the end). With `--arm=sft`, `--iterations` counts SFT steps.
//
//   node --conditions=@pilotrl/source --import tsx bench/rl-vs-sft/explore.ts --start=<dir> [--arm=rl|sft] \
//     [--iterations=20] [--eval-every=4] [--eval-per-split=50] [--lr=<1e-3 RL, 3e-3 SFT>] [--tasks=8] [--group=8] \
//     [--epochs=1] [--minibatches=2] [--anchor=0.1] [--estimator=turn-level] \
//     [--aggregation=seq-mean-token-sum] [--temperature=1] [--pool=demo|fresh] [--sampled]
import { parseArgs } from 'node:util';
import { createRng } from '@pilotrl/core';
import { TfjsPolicy } from '@pilotrl/policy-tfjs';
import { createUpdateStep } from '../../src/index';
import { play, taskSource } from './alfworld-play';
import { cpuSeconds, evaluate, loadData, log, pct, sftStep } from './harness';

const { values } = parseArgs({
  options: {
    start: { type: 'string' },
    arm: { type: 'string', default: 'rl' },
    iterations: { type: 'string', default: '20' },
    'eval-every': { type: 'string', default: '4' },
    'eval-per-split': { type: 'string', default: '50' },
    /** Default: the bench's rates, 1e-3 for RL and 3e-3 for SFT. */
    lr: { type: 'string' },
    tasks: { type: 'string', default: '8' },
    group: { type: 'string', default: '8' },
    epochs: { type: 'string', default: '1' },
    minibatches: { type: 'string', default: '2' },
    anchor: { type: 'string', default: '0.1' },
    estimator: { type: 'string', default: 'turn-level' },
    aggregation: { type: 'string', default: 'seq-mean-token-sum' },
    temperature: { type: 'string', default: '1' },
    pool: { type: 'string', default: 'demo' },
    sampled: { type: 'boolean', default: false },
  },
});
if (values.start === undefined) throw new Error('--start=<checkpoint dir> is required');
if (values.pool !== 'demo' && values.pool !== 'fresh') throw new Error('--pool must be demo or fresh');
if (values.arm !== 'rl' && values.arm !== 'sft') throw new Error('--arm must be rl or sft');
const number = (name: keyof typeof values) => Number(values[name]);
const temperature = number('temperature');
const learningRate = Number(values.lr ?? (values.arm === 'sft' ? 3e-3 : 1e-3));

const policy = await TfjsPolicy.load(values.start);
const data = await loadData(policy.tokenizer);
const evalTasks = [
  ...data.evalTasks.filter((t) => t.split === 'valid_seen').slice(0, number('eval-per-split')),
  ...data.evalTasks.filter((t) => t.split === 'valid_unseen').slice(0, number('eval-per-split')),
];
// Fresh tasks are generated train tasks that have no demonstration in the SFT data.
const pool =
  values.pool === 'demo'
    ? data.trainTasks
    : await taskSource.tasks('train', { offset: 100_000, limit: 5_000 });
const anchorCoef = number('anchor');
const update = createUpdateStep({
  estimator: values.estimator!,
  ...(values.estimator === 'turn-level' ? { estimatorArgs: { stepWeight: 1, gamma: 0.95 } } : {}),
  loss: 'ppo',
  lossArgs: { clipLow: 0.2, clipHigh: 0.28 },
  aggregation: values.aggregation as 'seq-mean-token-sum',
  // Sampler logprobs are the training logprobs only at temperature 1.
  oldLogprobs: temperature === 1 ? 'sampler' : 'recompute',
  epochs: number('epochs'),
  minibatches: number('minibatches'),
  anchorCoef,
  adam: { learningRate, gradClipNorm: 1 },
});
const sampledSuccess = async () => {
  const episodes = await play(policy, evalTasks, { groupSize: 2, temperature: 1, maxSteps: 25, seed: 4242 });
  return episodes.filter((e) => e.won).length / episodes.length;
};

log(`config ${JSON.stringify(values)}`);
log(`start: greedy held-out ${pct((await evaluate(policy, evalTasks)).rate)} on ${evalTasks.length} tasks`);
if (values.sampled) log(`start: sampled held-out ${pct(await sampledSuccess())} (2 samples per task)`);
const rng = createRng('rl-vs-sft/explore');
const start = cpuSeconds();
for (let step = 1; values.arm === 'sft' && step <= number('iterations'); step++) {
  await sftStep(policy, data.datums, rng, { batchSize: 32, learningRate });
  if (step % number('eval-every') === 0) {
    log(
      `after ${step} SFT steps: greedy held-out ${pct((await evaluate(policy, evalTasks)).rate)} (${(cpuSeconds() - start).toFixed(0)} CPU s)`,
    );
  }
}
for (let iteration = 1; values.arm === 'rl' && iteration <= number('iterations'); iteration++) {
  const tasks = Array.from({ length: number('tasks') }, () => rng.pick(pool));
  const episodes = await play(policy, tasks, {
    groupSize: number('group'),
    temperature,
    maxSteps: 25,
    seed: iteration,
  });
  const anchor = anchorCoef > 0 ? Array.from({ length: 32 }, () => rng.pick(data.datums)) : undefined;
  const { metrics } = await update(policy, episodes, anchor ? { anchor } : {});
  log(
    `update ${iteration}: rollout success ${pct(episodes.filter((e) => e.won).length / episodes.length)}, zero-variance groups ${metrics['charts/zero_variance_groups']}/${metrics['charts/groups']}, approx_kl ${(metrics['losses/approx_kl'] ?? 0).toFixed(4)} (${(cpuSeconds() - start).toFixed(0)} CPU s)`,
  );
  if (iteration % number('eval-every') === 0) {
    log(`after ${iteration} updates: greedy held-out ${pct((await evaluate(policy, evalTasks)).rate)}`);
  }
}
if (values.sampled) log(`end: sampled held-out ${pct(await sampledSuccess())} (2 samples per task)`);
