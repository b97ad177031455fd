// How fast an env steps: a seeded random admissible policy plays whole episodes, after a warm-up
// that lets the JIT compile the env first. Env packages' benchmarks report this figure.
import { createRng, type TextEnv } from '@pilotrl/core';

export interface RandomPlayOptions {
  /** Episodes to play. */
  episodes: number;
  /** Seed of the random policy. */
  seed: string;
  /** The reset seed of the n-th episode; by default n. */
  resetSeed?: (episode: number) => number;
}

/** Plays `episodes` episodes choosing uniformly among the admissible actions; returns the steps taken. */
export async function playRandomEpisodes(env: TextEnv, options: RandomPlayOptions): Promise<number> {
  const rng = createRng(options.seed);
  const resetSeed = options.resetSeed ?? ((episode: number) => episode);
  let steps = 0;
  for (let episode = 0; episode < options.episodes; episode++) {
    let result = await env.reset({ seed: resetSeed(episode) });
    while (!result.terminated && !result.truncated) {
      result = await env.step(rng.pick(result.admissibleActions));
      steps += 1;
    }
  }
  return steps;
}

export interface StepRate {
  steps: number;
  seconds: number;
  stepsPerSecond: number;
}

/** Steps per second of random play on a fresh env from `create`, after a warm-up of a tenth as many episodes. */
export async function measureStepRate(create: () => TextEnv, options: RandomPlayOptions): Promise<StepRate> {
  const warmUp = Math.max(1, Math.floor(options.episodes / 10));
  await playRandomEpisodes(create(), { ...options, episodes: warmUp, seed: `${options.seed}/warm-up` });
  const start = performance.now();
  const steps = await playRandomEpisodes(create(), options);
  const seconds = (performance.now() - start) / 1000;
  return { steps, seconds, stepsPerSecond: steps / seconds };
}
