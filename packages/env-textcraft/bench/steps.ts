// Throughput of the TextCraft env: steps per second under a seeded random admissible policy on the
// built-in world (AgentGym's 20-step limit), and oracle episodes per second.
import { createRng, type TextEnv } from '@pilotrl/core';
import { createTextcraftEnv, textcraftTasks } from '../src/index';

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

console.log(`textcraft: ${EPISODES} random episodes per setting, built-in world`);
console.log(`${'setting'.padEnd(28)} ${'steps/s'.padStart(10)}`);
for (const [label, config] of [
  ['admissible actions listed', {}],
  ['2024 traversal', { traversal: '2024' as const }],
] as const) {
  const create = () => createTextcraftEnv(config);
  await playEpisodes(create(), EPISODES / 10, 'warm-up');
  const start = performance.now();
  const steps = await playEpisodes(create(), EPISODES, `textcraft/${label}`);
  console.log(
    `${label.padEnd(28)} ${(steps / ((performance.now() - start) / 1000)).toFixed(0).padStart(10)}`,
  );
}

const tasks = await textcraftTasks.tasks('train');
const start = performance.now();
for (const task of tasks) await textcraftTasks.oracle(task);
console.log(`oracle: ${(tasks.length / ((performance.now() - start) / 1000)).toFixed(0)} solutions/s`);
