// Steps per second of the BabyAI env under a seeded random policy over its admissible commands, of
// the AgentGym text layer alone on one level, and of the engine's primitive actions against the
// original (Minigrid v2.3.1's env.step, via reference/drive-minigrid.py) on the same level when
// reference/setup.sh has installed it. The machine may be shared, so each figure is the median of
// several timed rounds after a warm-up round, and the engine's ratio is the median of rounds that
// time ours and Minigrid's back to back.
import { createRng } from '@pilotrl/core';
import { minigridStepsPerSecond, referenceInstalled } from '../reference/client';
import { Game } from '../src/game';
import { AgentGymBabyAI, babyaiLevel, createBabyaiEnv } from '../src/index';
import { PRIMITIVES } from '../src/world';

/** Timed rounds per figure (after one untimed warm-up round). */
const ROUNDS = 5;
/** Rounds of ours against Minigrid's per level (each starts Python, about two seconds). */
const PAIRED_ROUNDS = 3;
/** Env steps and AgentGym commands per round. */
const STEPS = 20_000;
/** Primitive actions per round of ours. */
const PRIMITIVE_STEPS = 200_000;
/** Primitive actions per round of Minigrid's (a second or so). */
const MINIGRID_STEPS = 5_000;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
};
const perSecond = (steps: number, started: number) => steps / ((performance.now() - started) / 1000);
const format = (value: number) => Math.round(value).toLocaleString('en-US');

/** Env steps per second, played on from round to round (resetting to the next seed when an episode ends). */
async function envStepsPerSecond(): Promise<number> {
  const env = createBabyaiEnv({ maxSteps: 20 });
  const rng = createRng(7);
  let seed = 0;
  let result = await env.reset({ seed });
  const round = async () => {
    const started = performance.now();
    for (let k = 0; k < STEPS; k++) {
      if (result.terminated || result.truncated) result = await env.reset({ seed: ++seed });
      result = await env.step(rng.pick(result.admissibleActions));
    }
    return perSecond(STEPS, started);
  };
  await round();
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) rates.push(await round());
  return median(rates);
}

/** AgentGym's commands on one level, drawn from the admissible ones. */
function commandsPerSecond(dataIdx: number): number {
  const level = babyaiLevel(dataIdx);
  const rng = createRng(7);
  let game = new AgentGymBabyAI(level);
  const round = () => {
    const started = performance.now();
    for (let k = 0; k < STEPS; k++) {
      if (game.done) game = new AgentGymBabyAI(level);
      game.step(rng.pick(game.availableActions()));
    }
    return perSecond(STEPS, started);
  };
  round();
  return median(Array.from({ length: ROUNDS }, round));
}

/**
 * A round of primitive actions with the observation image after each, as Minigrid's `env.step`
 * computes it; played on past the end without a reset, as the reference is measured.
 */
function primitiveRound(game: Game, rng: ReturnType<typeof createRng>): number {
  const primitives = Object.values(PRIMITIVES);
  const started = performance.now();
  for (let k = 0; k < PRIMITIVE_STEPS; k++) {
    game.step(rng.pick(primitives));
    game.image();
  }
  return perSecond(PRIMITIVE_STEPS, started);
}

const env = await envStepsPerSecond();
console.log(`babyai env (train tasks, random admissible commands): ${format(env)} steps/s`);
for (const dataIdx of [1, 35]) {
  const level = babyaiLevel(dataIdx);
  const name = `${level.level} seed ${level.seed}`;
  console.log(`${name}: AgentGym commands ${format(commandsPerSecond(dataIdx))}/s`);
  const game = new Game(level);
  const rng = createRng(7);
  primitiveRound(game, rng);
  if (!referenceInstalled()) {
    const ours = median(Array.from({ length: ROUNDS }, () => primitiveRound(game, rng)));
    console.log(
      `${name}: engine ${format(ours)} primitive steps/s; Minigrid not installed (reference/setup.sh)`,
    );
    continue;
  }
  const ours: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < PAIRED_ROUNDS; r++) {
    ours.push(primitiveRound(game, rng));
    theirs.push(minigridStepsPerSecond(level.level, level.seed!, MINIGRID_STEPS, 7));
    ratios.push(ours[r]! / theirs[r]!);
  }
  console.log(
    `${name}: engine ${format(median(ours))} primitive steps/s, Minigrid ${format(median(theirs))}/s, ratio ${median(ratios).toFixed(0)}x (${ratios.map((ratio) => ratio.toFixed(0)).join(', ')})`,
  );
}
