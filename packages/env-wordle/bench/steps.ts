// Throughput of the Wordle env: steps per second under a seeded random admissible policy (a random
// vocabulary word each guess), per vocabulary; and oracle solutions per second.
import { measureStepRate } from '@pilotrl/env-testkit';
import { createWordleEnv, createWordleTasks, type Vocabulary } from '../src/index';

const EPISODES = 2_000;

console.log(`wordle: ${EPISODES} random episodes per vocabulary (hidden word redrawn, as LMRL-Gym)`);
console.log(`${'vocabulary'.padEnd(22)} ${'steps/s'.padStart(10)} ${'oracle tasks/s'.padStart(15)}`);
for (const vocabulary of ['tweet_words', 'wordle_official_400', 'wordle_official'] as Vocabulary[]) {
  const create = () => createWordleEnv({ vocabulary, opening: 'server' });
  const { stepsPerSecond } = await measureStepRate(create, { episodes: EPISODES, seed: vocabulary });
  // The solver caches its decisions, so this is the rate once its decision tree is built.
  const tasks = createWordleTasks({ vocabulary });
  const refs = await tasks.tasks('train', { limit: 200 });
  for (const task of refs) await tasks.oracle(task);
  const oracleStart = performance.now();
  for (const task of refs) await tasks.oracle(task);
  const oraclePerSecond = refs.length / ((performance.now() - oracleStart) / 1000);
  console.log(
    `${vocabulary.padEnd(22)} ${stepsPerSecond.toFixed(0).padStart(10)} ${oraclePerSecond.toFixed(0).padStart(15)}`,
  );
}
