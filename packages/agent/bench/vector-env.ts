// Overhead of the vector env over stepping the same toy envs one by one: steps per second under a
// seeded random admissible policy, alone and through a 16-env vector env at concurrency 16 and 4.
import { createRng, type TextEnv } from '@pilotrl/core';
import { measureStepRate, testkitEnvs } from '@pilotrl/env-testkit';
import { createVectorEnv } from '../src/vector-env';

const EPISODES = 2_000;
const VECTOR_SIZE = 16;

async function playVector(create: () => TextEnv, rounds: number, concurrency: number): Promise<number> {
  const rng = createRng('bench/vector');
  const vector = createVectorEnv(create, { size: VECTOR_SIZE, concurrency });
  let steps = 0;
  for (let round = 0; round < rounds; round++) {
    const results = await vector.reset(
      Array.from({ length: VECTOR_SIZE }, (_, i) => ({ seed: round * VECTOR_SIZE + i })),
    );
    const admissible = results.map((r) => r.admissibleActions);
    while (vector.active.some(Boolean)) {
      const actions = vector.active.map((live, i) => (live ? rng.pick(admissible[i]!) : null));
      const stepped = await vector.step(actions);
      stepped.forEach((r, i) => {
        if (r !== null) {
          admissible[i] = r.admissibleActions;
          steps += 1;
        }
      });
    }
  }
  await vector.close();
  return steps;
}

const timed = async (run: () => Promise<number>) => {
  const start = performance.now();
  const steps = await run();
  return { steps, seconds: (performance.now() - start) / 1000 };
};

console.log(
  `vector env: ${EPISODES} random episodes of each toy env alone, then ${EPISODES / VECTOR_SIZE} rounds of a ${VECTOR_SIZE}-env vector`,
);
console.log(
  `${'env'.padEnd(18)} ${'steps/s'.padStart(10)} ${'vector c=16'.padStart(12)} ${'vector c=4'.padStart(11)} ${'ratio c=16'.padStart(11)}`,
);
for (const { envId, create } of testkitEnvs) {
  const single = await measureStepRate(create, { episodes: EPISODES, seed: envId });
  const wide = await timed(() => playVector(() => create(), EPISODES / VECTOR_SIZE, VECTOR_SIZE));
  const narrow = await timed(() => playVector(() => create(), EPISODES / VECTOR_SIZE, 4));
  const rate = (run: { steps: number; seconds: number }) => run.steps / run.seconds;
  console.log(
    `${envId.padEnd(18)} ${rate(single).toFixed(0).padStart(10)} ${rate(wide).toFixed(0).padStart(12)} ` +
      `${rate(narrow).toFixed(0).padStart(11)} ${(rate(wide) / rate(single)).toFixed(2).padStart(11)}`,
  );
}
