// A start checkpoint for explore.ts: the bench's SFT from scratch (same data, tokenizer, model,
// batch, learning rate, warm-up and rng stream as rl-vs-sft.ts's start loop) for `--steps` steps,
// then `--anneal` more steps whose learning rate falls linearly from the bench's to 0 (same rng
// stream), evaluated greedy and sampled on the bench's 200 evaluation tasks and saved to `--save`.
//
//   node --conditions=@pilotrl/source --import tsx bench/rl-vs-sft/sft-start.ts --save=<dir> \
//     [--steps=1800] [--anneal=300]
import { parseArgs } from 'node:util';
import { createRng } from '@pilotrl/core';
import { linearAnneal, TfjsPolicy } from '@pilotrl/policy-tfjs';
import {
  benchModel,
  benchSft,
  cpuSeconds,
  evalString,
  evaluate,
  fullData,
  loadData,
  log,
  randomBatchSftStep,
  warmedUpRate,
} from './harness';

const { values } = parseArgs({
  options: {
    save: { type: 'string' },
    steps: { type: 'string', default: '1800' },
    anneal: { type: 'string', default: '300' },
  },
});
if (values.save === undefined) throw new Error('--save=<checkpoint dir> is required');
const steps = Number(values.steps);
const annealSteps = Number(values.anneal);
for (const [name, value] of [
  ['steps', steps],
  ['anneal', annealSteps],
] as const) {
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`--${name} must be a whole number ≥ 0, got ${value}`);
}

const data = await loadData(undefined, fullData);
const policy = await TfjsPolicy.create({ tokenizer: data.tokenizer, model: benchModel });
const rng = createRng(benchSft.rng);
const start = cpuSeconds();
for (let step = 0; step < steps; step++) {
  await randomBatchSftStep(policy, data.datums, rng, { ...benchSft, learningRate: warmedUpRate(step) });
}
log(`${steps} SFT steps (${(cpuSeconds() - start).toFixed(0)} CPU s)`);
const annealed = linearAnneal({ from: benchSft.learningRate, steps: annealSteps });
for (let step = 0; step < annealSteps; step++) {
  await randomBatchSftStep(policy, data.datums, rng, { ...benchSft, learningRate: annealed(step) });
}
log(`${annealSteps} annealing steps (${(cpuSeconds() - start).toFixed(0)} CPU s in all)`);
await policy.saveState(values.save);
log(`greedy ${evalString(await evaluate(policy, data.evalTasks))}`);
log(`sampled ${evalString(await evaluate(policy, data.evalTasks, 25, 1))}`);
log(`saved to ${values.save}`);
