// Steps per second of the BabyAI env under a seeded random policy over its admissible commands, of
// the AgentGym text layer alone on one level, and of the engine's primitive actions. The engine is
// timed against the original (Minigrid v2.3.1's env.step, via reference/drive-minigrid.py) on the
// same level when reference/setup.sh has installed it; the env and the text layer against AgentGym's
// own (its BabyAI server object and BabyAI class, via reference/drive-agentgym-wrapper.py) on the
// same commands when AGENTENV_BABYAI names a checkout of it. The machine may be shared, so each
// figure is the median of several timed rounds after a warm-up round, and each ratio the median of
// rounds that time ours and the original back to back.
import { createRng, type StepResult } from '@pilotrl/core';
import {
  type AgentgymWrapperJob,
  agentgymCheckout,
  runAgentgymWrapper,
  textsDigest,
} from '../reference/agentgym-wrapper';
import { minigridStepsPerSecond, referenceInstalled } from '../reference/client';
import { Game } from '../src/game';
import { AgentGymBabyAI, babyaiLevel, createBabyaiEnv, type LevelState } from '../src/index';
import { PRIMITIVES } from '../src/world';

/** Timed rounds per figure (after one untimed warm-up round). */
const ROUNDS = 5;
/** Rounds of ours against the original's per figure (each starts Python, about two seconds). */
const PAIRED_ROUNDS = 3;
/** Env steps and AgentGym commands per round. */
const STEPS = 20_000;
/** The first commands of those that AgentGym's wrapper plays per round (a few seconds). */
const AGENTGYM_STEPS = 2_000;
/** Passes of ours over those commands per round against AgentGym's. */
const AGENTGYM_REPEATS = 10;
/** The env as the benchmark plays it: 20 commands an episode at most. */
const ENV_CONFIG = { maxSteps: 20 } as const;
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

/** An episode of the random policy on the env: the seed it was reset with and the commands played. */
interface EnvEpisode {
  seed: number;
  dataIdx: number;
  commands: string[];
}

/**
 * A seeded random policy's episodes over the train tasks, `steps` commands in all: each command drawn
 * from the admissible ones, a reset to the next seed when an episode ends. Recorded once, so ours and
 * AgentGym's play the same commands.
 */
async function randomEnvEpisodes(steps: number): Promise<EnvEpisode[]> {
  const env = createBabyaiEnv(ENV_CONFIG);
  const rng = createRng(7);
  const episodes: EnvEpisode[] = [];
  let result: StepResult | undefined;
  for (let k = 0; k < steps; k++) {
    if (result === undefined || result.terminated || result.truncated) {
      const seed = episodes.length;
      result = await env.reset({ seed });
      episodes.push({ seed, dataIdx: result.info.dataIdx as number, commands: [] });
    }
    const command = rng.pick(result.admissibleActions);
    episodes.at(-1)!.commands.push(command);
    result = await env.step(command);
  }
  return episodes;
}

/** Ours on recorded episodes: env steps per second (resets timed, not counted) and the texts answered. */
async function envRound(episodes: readonly EnvEpisode[], repeats = 1) {
  const env = createBabyaiEnv(ENV_CONFIG);
  const texts: string[] = [];
  let steps = 0;
  const started = performance.now();
  for (let r = 0; r < repeats; r++) {
    texts.length = 0;
    for (const episode of episodes) {
      texts.push((await env.reset({ seed: episode.seed })).observation);
      for (const command of episode.commands) texts.push((await env.step(command)).observation);
      steps += episode.commands.length;
    }
  }
  return { rate: perSecond(steps, started), texts };
}

/** A seeded random policy's commands on one level, drawn from the admissible ones, a fresh game after each win. */
function randomCommands(level: LevelState, steps: number): string[] {
  const rng = createRng(7);
  let game = new AgentGymBabyAI(level);
  const commands: string[] = [];
  for (let k = 0; k < steps; k++) {
    if (game.done) game = new AgentGymBabyAI(level);
    const command = rng.pick(game.availableActions());
    commands.push(command);
    game.step(command);
  }
  return commands;
}

/** Ours on recorded commands: AgentGym commands per second (fresh games timed) and the texts answered. */
function commandRound(level: LevelState, commands: readonly string[], repeats = 1) {
  const texts: string[] = [];
  const started = performance.now();
  for (let r = 0; r < repeats; r++) {
    texts.length = 0;
    let game = new AgentGymBabyAI(level);
    for (const command of commands) {
      if (game.done) game = new AgentGymBabyAI(level);
      texts.push(game.step(command).text);
    }
  }
  return { rate: perSecond(commands.length * repeats, started), texts };
}

/**
 * Rounds of ours against AgentGym's wrapper (drive-agentgym-wrapper.py) on the same job, back to
 * back; ours repeats the job AGENTGYM_REPEATS times a round, as one pass takes it milliseconds.
 * Checks that both answered the same texts.
 */
async function againstAgentgym(
  name: string,
  job: AgentgymWrapperJob,
  ours: (repeats: number) => Promise<{ rate: number; texts: string[] }>,
): Promise<void> {
  if ('missing' in checkout) return;
  const rates: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  let same = true;
  let played = 0;
  await ours(1);
  for (let r = 0; r < PAIRED_ROUNDS; r++) {
    const round = await ours(AGENTGYM_REPEATS);
    const answer = runAgentgymWrapper(checkout.folder, job);
    same &&= answer.digest === textsDigest(round.texts);
    played = answer.steps;
    rates.push(round.rate);
    theirs.push(answer.steps_per_second);
    ratios.push(round.rate / answer.steps_per_second);
  }
  console.log(
    `${name}: ours ${format(median(rates))}/s, AgentGym's wrapper ${format(median(theirs))}/s on the same ${played.toLocaleString('en-US')} commands${same ? ' (same texts)' : ' (TEXTS DIFFER: not the same work)'}, ratio ${median(ratios).toFixed(0)}x (${ratios.map((ratio) => ratio.toFixed(0)).join(', ')})`,
  );
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

const checkout = agentgymCheckout();
if ('missing' in checkout) console.log(`No ratios against AgentGym's BabyAI text layer: ${checkout.missing}`);
const envEpisodes = await randomEnvEpisodes(STEPS);
await envRound(envEpisodes);
const envRates: number[] = [];
for (let r = 0; r < ROUNDS; r++) envRates.push((await envRound(envEpisodes)).rate);
console.log(`babyai env (train tasks, random admissible commands): ${format(median(envRates))} steps/s`);
const envShort = await randomEnvEpisodes(AGENTGYM_STEPS);
await againstAgentgym(
  'babyai env',
  { kind: 'server', episodes: envShort.map(({ dataIdx, commands }) => ({ data_idx: dataIdx, commands })) },
  (repeats) => envRound(envShort, repeats),
);
for (const dataIdx of [1, 35]) {
  const level = babyaiLevel(dataIdx);
  const name = `${level.level} seed ${level.seed}`;
  const commands = randomCommands(level, STEPS);
  commandRound(level, commands);
  const rate = median(Array.from({ length: ROUNDS }, () => commandRound(level, commands).rate));
  console.log(`${name}: AgentGym commands ${format(rate)}/s`);
  const short = commands.slice(0, AGENTGYM_STEPS);
  await againstAgentgym(
    `${name}, AgentGym commands`,
    { kind: 'commands', level: level.level, seed: level.seed!, commands: short },
    async (repeats) => commandRound(level, short, repeats),
  );
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
