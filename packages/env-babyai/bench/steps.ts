// Steps per second of the BabyAI env under a seeded random policy over its admissible commands, of
// the AgentGym text layer alone on one level, and of the engine's primitive actions against the
// original (Minigrid v2.3.1's env.step, via reference/drive-minigrid.py) on the same level when
// reference/setup.sh has installed it: prints each and the engine's ratio.
import { createRng } from '@pilotrl/core';
import { minigridStepsPerSecond, referenceInstalled } from '../reference/client';
import { Game } from '../src/game';
import { AgentGymBabyAI, babyaiLevel, createBabyaiEnv } from '../src/index';
import { PRIMITIVES } from '../src/world';

const STEPS = 20_000;
const PRIMITIVE_STEPS = 200_000;

async function envStepsPerSecond(): Promise<number> {
  const env = createBabyaiEnv({ maxSteps: 20 });
  const rng = createRng(7);
  let result = await env.reset({ seed: 0 });
  const started = performance.now();
  for (let k = 0; k < STEPS; k++) {
    if (result.terminated || result.truncated) result = await env.reset({ seed: k });
    result = await env.step(rng.pick(result.admissibleActions));
  }
  return STEPS / ((performance.now() - started) / 1000);
}

/** AgentGym's commands on one level, drawn from the admissible ones. */
function commandsPerSecond(dataIdx: number): number {
  const level = babyaiLevel(dataIdx);
  const rng = createRng(7);
  let game = new AgentGymBabyAI(level);
  const started = performance.now();
  for (let k = 0; k < STEPS; k++) {
    if (game.done) game = new AgentGymBabyAI(level);
    game.step(rng.pick(game.availableActions()));
  }
  return STEPS / ((performance.now() - started) / 1000);
}

/**
 * Primitive actions with the observation image after each, as Minigrid's `env.step` computes it;
 * played on past the end without a reset, as the reference is measured.
 */
function primitivesPerSecond(dataIdx: number): number {
  const level = babyaiLevel(dataIdx);
  const rng = createRng(7);
  const primitives = Object.values(PRIMITIVES);
  const game = new Game(level);
  const started = performance.now();
  for (let k = 0; k < PRIMITIVE_STEPS; k++) {
    game.step(rng.pick(primitives));
    game.image();
  }
  return PRIMITIVE_STEPS / ((performance.now() - started) / 1000);
}

const env = await envStepsPerSecond();
console.log(`babyai env (train tasks, random admissible commands): ${Math.round(env)} steps/s`);
for (const dataIdx of [1, 35]) {
  const level = babyaiLevel(dataIdx);
  const name = `${level.level} seed ${level.seed}`;
  console.log(`${name}: AgentGym commands ${Math.round(commandsPerSecond(dataIdx))}/s`);
  const ours = primitivesPerSecond(dataIdx);
  const line = `${name}: engine ${Math.round(ours)} primitive steps/s`;
  if (!referenceInstalled()) {
    console.log(`${line}; Minigrid not installed (reference/setup.sh)`);
    continue;
  }
  const theirs = minigridStepsPerSecond(level.level, level.seed!, 5000, 7);
  console.log(`${line}, Minigrid ${Math.round(theirs)}/s, ratio ${(ours / theirs).toFixed(1)}x`);
}
