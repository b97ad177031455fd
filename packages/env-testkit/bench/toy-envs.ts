// Throughput of the toy envs: steps per second under a seeded random admissible policy.
import { measureStepRate, testkitEnvs } from '../src/index';

const EPISODES = 2_000;

console.log(`toy envs: ${EPISODES} random episodes each`);
console.log(`${'env'.padEnd(18)} ${'steps/s'.padStart(10)}`);
for (const { envId, create } of testkitEnvs) {
  const { stepsPerSecond } = await measureStepRate(create, { episodes: EPISODES, seed: envId });
  console.log(`${envId.padEnd(18)} ${stepsPerSecond.toFixed(0).padStart(10)}`);
}
