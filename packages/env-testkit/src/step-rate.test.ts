import { describe, expect, it } from 'vitest';
import { createCorridorEnv } from './corridor';
import { measureStepRate, playRandomEpisodes } from './step-rate';

describe('random play for step rates', () => {
  it('plays whole episodes, the same ones for the same seed', async () => {
    const steps = await playRandomEpisodes(createCorridorEnv({ maxSteps: 7 }), { episodes: 20, seed: 'a' });
    expect(steps).toBeGreaterThanOrEqual(20);
    expect(steps).toBeLessThanOrEqual(20 * 7);
    expect(await playRandomEpisodes(createCorridorEnv({ maxSteps: 7 }), { episodes: 20, seed: 'a' })).toBe(
      steps,
    );
  });

  it('resets each episode with the seed it is given', async () => {
    const seeds: number[] = [];
    const env = createCorridorEnv();
    const reset = env.reset.bind(env);
    env.reset = (options) => {
      seeds.push(options.seed);
      return reset(options);
    };
    await playRandomEpisodes(env, { episodes: 4, seed: 'b', resetSeed: (n) => 10 + n });
    expect(seeds).toEqual([10, 11, 12, 13]);
  });

  it('reports the steps of the timed run and their rate', async () => {
    const rate = await measureStepRate(() => createCorridorEnv(), { episodes: 10, seed: 'c' });
    expect(rate.steps).toBe(await playRandomEpisodes(createCorridorEnv(), { episodes: 10, seed: 'c' }));
    expect(rate.stepsPerSecond).toBeCloseTo(rate.steps / rate.seconds);
  });
});
