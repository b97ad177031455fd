// Throughput of the toy envs: steps per second under a seeded random admissible policy.
import { createRng, type TextEnv } from '@pilotrl/core';
import { testkitEnvs } from '../src/index';

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

console.log(`toy envs: ${EPISODES} random episodes each`);
console.log(`${'env'.padEnd(18)} ${'steps/s'.padStart(10)}`);
for (const { envId, create } of testkitEnvs) {
  // Warm-up, so that the JIT has compiled the env before it is timed.
  await playEpisodes(create(), EPISODES / 10, 'warm-up');
  const start = performance.now();
  const steps = await playEpisodes(create(), EPISODES, envId);
  const seconds = (performance.now() - start) / 1000;
  console.log(`${envId.padEnd(18)} ${(steps / seconds).toFixed(0).padStart(10)}`);
}
