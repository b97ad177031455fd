// Throughput of the Wordle env: steps per second under a seeded random admissible policy (a random
// vocabulary word each guess), per vocabulary; and oracle solutions per second.
import { createRng, type TextEnv } from '@pilotrl/core';
import { createWordleEnv, createWordleTasks, type Vocabulary } from '../src/index';

const EPISODES = 2_000;

async function playEpisodes(env: TextEnv, episodes: number, seed: string): Promise<number> {
  const rng = createRng(seed);
  let steps = 0;
  for (let episode = 0; episode < episodes; episode++) {
    let result = await env.reset({ seed: episode });
    while (!result.terminated && !result.truncated) {
      result = await env.step(rng.pick(result.admissibleActions));
      steps += 1;
    }
  }
  return steps;
}

console.log(`wordle: ${EPISODES} random episodes per vocabulary (hidden word redrawn, as LMRL-Gym)`);
console.log(`${'vocabulary'.padEnd(22)} ${'steps/s'.padStart(10)} ${'oracle tasks/s'.padStart(15)}`);
for (const vocabulary of ['tweet_words', 'wordle_official_400', 'wordle_official'] as Vocabulary[]) {
  const create = () => createWordleEnv({ vocabulary, opening: 'server' });
  await playEpisodes(create(), EPISODES / 10, 'warm-up');
  const start = performance.now();
  const steps = await playEpisodes(create(), EPISODES, vocabulary);
  const stepsPerSecond = steps / ((performance.now() - start) / 1000);
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
