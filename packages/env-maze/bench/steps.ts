// Throughput of the Maze env: steps per second under a seeded random admissible policy (one of the
// four moves each step), with AgentGym's 15-step limit and with LMRL-Gym's own 50 + 1.
import { measureStepRate } from '@pilotrl/env-testkit';
import { createMazeEnv } from '../src/index';

const EPISODES = 5_000;

console.log(`maze: ${EPISODES} random episodes per setting, games 0-24`);
console.log(`${'maxSteps'.padEnd(10)} ${'steps/s'.padStart(10)}`);
for (const maxSteps of [15, 100]) {
  const create = () => createMazeEnv({ maxSteps, opening: 'server' });
  const { stepsPerSecond } = await measureStepRate(create, {
    episodes: EPISODES,
    seed: `maze/${maxSteps}`,
    resetSeed: (episode) => episode % 25,
  });
  console.log(`${String(maxSteps).padEnd(10)} ${stepsPerSecond.toFixed(0).padStart(10)}`);
}
