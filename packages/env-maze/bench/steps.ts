// Throughput of the Maze env: steps per second under a seeded random admissible policy (one of the
// four moves each step), with AgentGym's 15-step limit and with LMRL-Gym's own 50 + 1.
import { createRng, type TextEnv } from '@pilotrl/core';
import { createMazeEnv } from '../src/index';

const EPISODES = 5_000;

async function playEpisodes(env: TextEnv, episodes: number, seed: string): Promise<number> {
  const rng = createRng(seed);
  let steps = 0;
  for (let episode = 0; episode < episodes; episode++) {
    let result = await env.reset({ seed: episode % 25 });
    while (!result.terminated && !result.truncated) {
      result = await env.step(rng.pick(result.admissibleActions));
      steps += 1;
    }
  }
  return steps;
}

console.log(`maze: ${EPISODES} random episodes per setting, games 0-24`);
console.log(`${'maxSteps'.padEnd(10)} ${'steps/s'.padStart(10)}`);
for (const maxSteps of [15, 100]) {
  const create = () => createMazeEnv({ maxSteps, opening: 'server' });
  await playEpisodes(create(), EPISODES / 10, 'warm-up');
  const start = performance.now();
  const steps = await playEpisodes(create(), EPISODES, `maze/${maxSteps}`);
  console.log(
    `${String(maxSteps).padEnd(10)} ${(steps / ((performance.now() - start) / 1000)).toFixed(0).padStart(10)}`,
  );
}
