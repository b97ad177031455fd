// Throughput of the TextCraft env: steps per second under a seeded random admissible policy on the
// built-in world (AgentGym's 20-step limit), and oracle episodes per second.
import { measureStepRate } from '@pilotrl/env-testkit';
import { createTextcraftEnv, textcraftTasks } from '../src/index';

const EPISODES = 2_000;

console.log(`textcraft: ${EPISODES} random episodes per setting, built-in world`);
console.log(`${'setting'.padEnd(28)} ${'steps/s'.padStart(10)}`);
for (const [label, config] of [
  ['admissible actions listed', {}],
  ['2024 traversal', { traversal: '2024' as const }],
] as const) {
  const create = () => createTextcraftEnv(config);
  const { stepsPerSecond } = await measureStepRate(create, {
    episodes: EPISODES,
    seed: `textcraft/${label}`,
  });
  console.log(`${label.padEnd(28)} ${stepsPerSecond.toFixed(0).padStart(10)}`);
}

const tasks = await textcraftTasks.tasks('train');
const start = performance.now();
for (const task of tasks) await textcraftTasks.oracle(task);
console.log(`oracle: ${(tasks.length / ((performance.now() - start) / 1000)).toFixed(0)} solutions/s`);
