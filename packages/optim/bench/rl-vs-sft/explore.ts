// One training variant from a checkpoint, with held-out evaluations (greedy and sampled at
// temperature 1) along the way: the quick loop for trying variants before a full rl-vs-sft run
// (which only evaluates at the end). Arms:
// - `rl`: rollouts and one update step per iteration (the bench's RL arm, every knob a flag);
// - `sft`: continued SFT, one step per iteration;
// - `expert-iteration`: per iteration, sampled rollouts on fresh tasks, the steps of the won
//   episodes kept, then `--sft-steps` SFT steps drawing `--mix` of the batches from the kept steps
//   and the rest from the demonstrations; `--keep=shortest` keeps only each group's fewest-turn
//   win (the one that wasted the fewest moves searching); `--keep=shortcut` replays each group's
//   wins without their detours (`shortcut` of @pilotrl/agent) and keeps the shortest, rendered in
//   the prompts that play would have shown; `--hindsight` also keeps, from each group with no win,
//   the shortest shortcut of the first goal one of its episodes reached instead
//   (`hindsightGoal` of @pilotrl/env-alfworld), its prompts naming that goal.
// `--anneal=<n>` ends the sft and expert-iteration arms with n more SFT steps whose learning rate
// falls linearly from `--lr` to 0, batches drawn as the arm draws them, then evaluates again (the
// start checkpoint was annealed the same way, so both arms are compared at the end of a decay).
// `--new-demos=<n>` gives the sft arm the demonstrations of n new train tasks instead of the
// bench's (is the SFT plateau the data's or the model's?).
// `--progress=<w>` adds w × a milestone reward (bench/rl-vs-sft/progress-reward.ts) to RL's success
// reward, `--repeat-penalty=<p>` subtracts p × the fraction of commands that repeat one of the two
// before them (@pilotrl/rewards); evaluations still count wins only. `--episode-mean` scales each
// episode's turn advantages by (mean turns per episode) / (its turns), so every episode carries the
// same weight in the loss and a long lost episode no longer outweighs a short win.
// `--curriculum` draws RL and expert-iteration tasks by type, weighting each type by p(1-p) of its
// recent rollout success p (types that are always won or always lost teach nothing).
//
//   node --conditions=@pilotrl/source --import tsx bench/rl-vs-sft/explore.ts --start=<dir> \
//     [--arm=rl|sft|expert-iteration] [--iterations=20] [--eval-every=4] [--eval-per-split=50] \
//     [--lr=<1e-3 RL, 3e-3 SFT>] [--tasks=8] [--group=8] [--epochs=1] [--minibatches=2] [--anchor=0.1] \
//     [--estimator=turn-level] [--aggregation=seq-mean-token-sum] [--temperature=1] [--pool=demo|fresh] \
//     [--curriculum] [--sft-steps=40] [--mix=0.5] [--keep=all|shortest|shortcut] [--hindsight] \
//     [--new-demos=0] [--anneal=0] [--save=<dir prefix>] [--demonstrator=oracle|searching] \
//     [--progress=0] [--repeat-penalty=0] [--episode-mean] [--seed=0]
import { parseArgs } from 'node:util';
import { shortcut } from '@pilotrl/agent';
import { createRng, type Datum, type Episode, type TaskRef } from '@pilotrl/core';
import { AlfworldEnv, goalSentence, type HindsightGoal, hindsightGoal, reaches } from '@pilotrl/env-alfworld';
import { linearAnneal, TfjsPolicy } from '@pilotrl/policy-tfjs';
import { composeRewards, createOutcomeReward, createRepeatedActionPenalty } from '@pilotrl/rewards';
import { advantageEstimators, createUpdateStep, turnLevel } from '../../src/index';
import { parseDemonstrator, play, playExamples, taskSource } from './alfworld-play';
import {
  cpuSeconds,
  demonstrationDatums,
  evaluate,
  exampleDatums,
  fullData,
  loadData,
  log,
  pct,
  randomBatchSftStep,
  winRate,
} from './harness';
import { createProgressReward } from './progress-reward';

const { values } = parseArgs({
  options: {
    start: { type: 'string' },
    arm: { type: 'string', default: 'rl' },
    iterations: { type: 'string', default: '20' },
    'eval-every': { type: 'string', default: '4' },
    'eval-per-split': { type: 'string', default: '50' },
    /** Default: the bench's rates, 1e-3 for RL and 3e-3 for SFT and expert iteration. */
    lr: { type: 'string' },
    tasks: { type: 'string', default: '8' },
    group: { type: 'string', default: '8' },
    epochs: { type: 'string', default: '1' },
    minibatches: { type: 'string', default: '2' },
    anchor: { type: 'string', default: '0.1' },
    estimator: { type: 'string', default: 'turn-level' },
    aggregation: { type: 'string', default: 'seq-mean-token-sum' },
    temperature: { type: 'string', default: '1' },
    pool: { type: 'string', default: 'demo' },
    curriculum: { type: 'boolean', default: false },
    'sft-steps': { type: 'string', default: '40' },
    mix: { type: 'string', default: '0.5' },
    /**
     * Expert iteration keeps every won episode (`all`), each group's shortest win (`shortest`) or
     * the shortest of its wins replayed without their detours (`shortcut`).
     */
    keep: { type: 'string', default: 'all' },
    /** With `--keep=shortcut`: groups with no win teach the goal they reached (hindsight goals). */
    hindsight: { type: 'boolean', default: false },
    /**
     * The sft arm trains on the demonstrator's play of this many new train tasks (from offset
     * 200,000: disjoint from the bench's demonstrated tasks and from the fresh pool) instead.
     */
    'new-demos': { type: 'string', default: '0' },
    /** SFT steps with a linearly falling learning rate after the iterations (sft, expert-iteration). */
    anneal: { type: 'string', default: '0' },
    /** Each evaluated checkpoint is saved to `<save>-<iteration>`. */
    save: { type: 'string' },
    /** Who demonstrated the SFT data the start was trained on (anchors and SFT batches). */
    demonstrator: { type: 'string', default: 'oracle' },
    progress: { type: 'string', default: '0' },
    'repeat-penalty': { type: 'string', default: '0' },
    'episode-mean': { type: 'boolean', default: false },
    /** Seeds task draws and rollouts (a run continued from a saved checkpoint needs a new one). */
    seed: { type: 'string', default: '0' },
  },
});
const arms = ['rl', 'sft', 'expert-iteration'];
if (values.start === undefined) throw new Error('--start=<checkpoint dir> is required');
if (values.pool !== 'demo' && values.pool !== 'fresh') throw new Error('--pool must be demo or fresh');
if (!arms.includes(values.arm!)) throw new Error(`--arm must be one of ${arms.join(', ')}`);
const demonstrator = parseDemonstrator(values.demonstrator!);
if (values['episode-mean'] && values.estimator !== 'turn-level') {
  throw new Error('--episode-mean applies to --estimator=turn-level');
}
if (values['new-demos'] !== '0' && values.arm !== 'sft') throw new Error('--new-demos applies to --arm=sft');
if (values.anneal !== '0' && values.arm === 'rl') {
  throw new Error('--anneal applies to --arm=sft|expert-iteration');
}
const keeps = ['all', 'shortest', 'shortcut'];
if (!keeps.includes(values.keep!)) throw new Error(`--keep must be one of ${keeps.join(', ')}`);
if (values.hindsight && (values.arm !== 'expert-iteration' || values.keep !== 'shortcut')) {
  throw new Error('--hindsight applies to --arm=expert-iteration --keep=shortcut');
}
const number = (name: keyof typeof values) => Number(values[name]);
const temperature = number('temperature');
const learningRate = Number(values.lr ?? (values.arm === 'rl' ? 1e-3 : 3e-3));

const policy = await TfjsPolicy.load(values.start);
const data = await loadData(policy.tokenizer, { ...fullData, demonstrator });
const evalTasks = [
  ...data.evalTasks.filter((t) => t.split === 'valid_seen').slice(0, number('eval-per-split')),
  ...data.evalTasks.filter((t) => t.split === 'valid_unseen').slice(0, number('eval-per-split')),
];
// Fresh tasks are generated train tasks that have no demonstration in the SFT data.
const pool =
  values.pool === 'demo'
    ? data.trainTasks
    : await taskSource.tasks('train', { offset: 100_000, limit: 5_000 });
const newDemoTasks =
  number('new-demos') > 0
    ? await taskSource.tasks('train', { offset: 200_000, limit: number('new-demos') })
    : undefined;
const sftData = newDemoTasks
  ? await demonstrationDatums(newDemoTasks, policy.tokenizer, demonstrator)
  : data.datums;
const anchorCoef = number('anchor');
advantageEstimators.register('turn-level-episode-mean', (args) => {
  const inner = turnLevel(args as Parameters<typeof turnLevel>[0]);
  return {
    name: 'turn-level-episode-mean',
    needsValues: false,
    estimate(input) {
      const { advantages } = inner.estimate(input);
      const turns = input.episodes.map((e) => e.turns.length);
      const meanTurns = turns.reduce((a, b) => a + b, 0) / turns.length;
      return {
        advantages: advantages.map((episode, e) =>
          episode.map((generation) => generation.map((a) => (a * meanTurns) / turns[e]!)),
        ),
      };
    },
  };
});
const estimator = values['episode-mean'] ? 'turn-level-episode-mean' : values.estimator!;
const update = createUpdateStep({
  estimator,
  ...(values.estimator === 'turn-level' ? { estimatorArgs: { stepWeight: 1, gamma: 0.95 } } : {}),
  loss: 'ppo',
  lossArgs: { clipLow: 0.2, clipHigh: 0.28 },
  aggregation: values.aggregation as 'seq-mean-token-sum',
  // Sampler logprobs are the training logprobs only at temperature 1.
  oldLogprobs: temperature === 1 ? 'sampler' : 'recompute',
  epochs: number('epochs'),
  minibatches: number('minibatches'),
  anchorCoef,
  adam: { learningRate, gradClipNorm: 1 },
});
const rng = createRng(values.seed === '0' ? 'rl-vs-sft/explore' : `rl-vs-sft/explore/${values.seed}`);
/** RL's reward: success, plus the shaping terms the flags ask for (only those are computed). */
const reward = composeRewards([
  { fn: createOutcomeReward(), weight: 1 },
  ...(number('progress') !== 0 ? [{ fn: createProgressReward(), weight: number('progress') }] : []),
  ...(number('repeat-penalty') !== 0
    ? [{ fn: createRepeatedActionPenalty({ penalty: number('repeat-penalty'), window: 2 }), weight: 1 }]
    : []),
]);

/** Task draws: uniform over the pool, or by type weighted by p(1-p) of recent rollout success. */
const typeOf = (task: Pick<TaskRef, 'taskType'>) => task.taskType ?? 'unknown';
const byType = new Map<string, TaskRef[]>();
for (const task of pool) {
  const own = byType.get(typeOf(task));
  if (own === undefined) byType.set(typeOf(task), [task]);
  else own.push(task);
}
const types = [...byType.keys()];
const typeSuccess = new Map(types.map((type) => [type, 0.3]));
const drawTasks = (count: number) =>
  Array.from({ length: count }, () => {
    if (!values.curriculum) return rng.pick(pool);
    const weights = types.map((type) => {
      const p = typeSuccess.get(type)!;
      return p * (1 - p) + 0.02;
    });
    return rng.pick(byType.get(types[rng.weightedIndex(weights)]!)!);
  });
const recordSuccess = (episodes: readonly Episode[]) => {
  for (const type of new Set(episodes.map(typeOf))) {
    const own = episodes.filter((e) => typeOf(e) === type);
    typeSuccess.set(type, 0.7 * typeSuccess.get(type)! + 0.3 * winRate(own));
  }
};
const rollouts = async (iteration: number) => {
  const episodes = await play(policy, drawTasks(number('tasks')), {
    groupSize: number('group'),
    temperature,
    maxSteps: 25,
    seed: number('seed') * 100_000 + iteration,
  });
  recordSuccess(episodes);
  return episodes;
};

/** The episodes of each group. */
const byGroup = (episodes: readonly Episode[]) => {
  const groups = new Map<string, Episode[]>();
  for (const episode of episodes) {
    const own = groups.get(episode.groupId);
    if (own === undefined) groups.set(episode.groupId, [episode]);
    else own.push(episode);
  }
  return [...groups.values()];
};
/** Each group's wins, fewest turns first. */
const winsByGroup = (episodes: readonly Episode[]) =>
  byGroup(episodes.filter((e) => e.won)).map((wins) => wins.sort((a, b) => a.turns.length - b.turns.length));

/** A won turn's generation already holds prompt + command tokens and the mask of the command. */
const turnDatums = (episode: Episode): Datum[] =>
  episode.turns.flatMap((turn) =>
    turn.generations.map(({ tokenIds, lossMask }) => ({ tokenIds, weights: [...lossMask] })),
  );

const replayEnv = new AlfworldEnv({ maxSteps: 25, cacheSize: 4 });
const poolById = new Map(pool.map((task) => [task.taskId, task]));
const actionsOf = (episode: Episode) => episode.turns.map((turn) => turn.action!);
/** Which of the two sentence templates names a hindsight goal (a stream of its own). */
const templateRng = rng.fork('hindsight-templates');

/** `commands` played in `task` as SFT datums, the prompts naming `goal` where one is given. */
const renderedDatums = async (task: TaskRef, commands: readonly string[], goal?: string) => {
  const played = await playExamples(replayEnv, task, (_, index) => commands[index], goal);
  if (goal === undefined && !played.won)
    throw new Error(`shortcut of ${task.taskId} did not win when rendered`);
  return exampleDatums(played.examples, policy.tokenizer);
};

/** For a group with no win: the shortest shortcut to the first goal one of its episodes reached. */
const hindsightDatums = async (lost: readonly Episode[]): Promise<Datum[]> => {
  const task = poolById.get(lost[0]!.taskId!)!;
  let best: { commands: string[]; goal: HindsightGoal } | undefined;
  for (const episode of lost) {
    const actions = actionsOf(episode);
    const found = hindsightGoal(actions);
    if (found === undefined) continue;
    const commands = await shortcut(
      replayEnv,
      task,
      actions.slice(0, found.reachedAfter),
      reaches(found.goal),
    );
    if (best === undefined || commands.length < best.commands.length) best = { commands, goal: found.goal };
  }
  if (best === undefined) return [];
  return renderedDatums(task, best.commands, goalSentence(best.goal, templateRng.int(2) as 0 | 1));
};

/** Kept steps that came from hindsight goals (`--hindsight`). */
let hindsightSteps = 0;
/** The won steps expert iteration learns from, as SFT datums (see `--keep`). */
const keptDatums = async (episodes: readonly Episode[]): Promise<Datum[]> => {
  const groups = winsByGroup(episodes);
  if (values.keep === 'all') return groups.flat().flatMap(turnDatums);
  if (values.keep === 'shortest') return groups.flatMap((wins) => turnDatums(wins[0]!));
  const datums: Datum[] = [];
  for (const wins of groups) {
    const task = poolById.get(wins[0]!.taskId!)!;
    let best: string[] | undefined;
    for (const win of wins) {
      const cut = await shortcut(replayEnv, task, actionsOf(win));
      if (best === undefined || cut.length < best.length) best = cut;
    }
    datums.push(...(await renderedDatums(task, best!)));
  }
  if (values.hindsight) {
    for (const lost of byGroup(episodes).filter((group) => group.every((e) => !e.won))) {
      const taught = await hindsightDatums(lost);
      hindsightSteps += taught.length;
      datums.push(...taught);
    }
  }
  return datums;
};

const evaluateBoth = async (label: string, iteration: number) => {
  const greedy = await evaluate(policy, evalTasks);
  const sampled = await evaluate(policy, evalTasks, 25, 1);
  log(
    `${label}: held-out greedy ${pct(greedy.rate)}, sampled ${pct(sampled.rate)} on ${evalTasks.length} tasks`,
  );
  if (values.save !== undefined && iteration > 0) await policy.saveState(`${values.save}-${iteration}`);
};

log(`config ${JSON.stringify(values)}`);
await evaluateBoth('start', 0);
/** Training CPU seconds (evaluations excluded). */
let trainingCpu = 0;
const kept: Datum[] = [];
/** Where an SFT step of this arm draws its batch: expert iteration mixes kept steps in. */
const sftSource = () =>
  values.arm === 'sft' ? sftData : kept.length > 0 && rng.float() < number('mix') ? kept : data.datums;
for (let iteration = 1; iteration <= number('iterations'); iteration++) {
  const iterationStart = cpuSeconds();
  let line = `iteration ${iteration}`;
  if (values.arm === 'sft') {
    await randomBatchSftStep(policy, sftSource(), rng, { batchSize: 32, learningRate });
  } else if (values.arm === 'rl') {
    const episodes = await reward.applyAll(await rollouts(iteration));
    const anchor = anchorCoef > 0 ? Array.from({ length: 32 }, () => rng.pick(data.datums)) : undefined;
    const { metrics } = await update(policy, episodes, anchor ? { anchor } : {});
    const meanReward = episodes.reduce((sum, e) => sum + e.reward!, 0) / episodes.length;
    line += `: rollout success ${pct(winRate(episodes))}, mean reward ${meanReward.toFixed(3)}, zero-variance groups ${metrics['charts/zero_variance_groups']}/${metrics['charts/groups']}, approx_kl ${(metrics['losses/approx_kl'] ?? 0).toFixed(4)}`;
  } else {
    const episodes = await rollouts(iteration);
    kept.push(...(await keptDatums(episodes)));
    for (let step = 0; step < number('sft-steps'); step++) {
      await randomBatchSftStep(policy, sftSource(), rng, { batchSize: 32, learningRate });
    }
    line += `: rollout success ${pct(winRate(episodes))}, ${kept.length} steps kept`;
    if (values.hindsight) line += ` (${hindsightSteps} of them for hindsight goals)`;
  }
  trainingCpu += cpuSeconds() - iterationStart;
  if (values.arm !== 'sft') log(`${line} (${trainingCpu.toFixed(0)} CPU s)`);
  if (iteration % number('eval-every') === 0) {
    await evaluateBoth(`after ${iteration} iterations, ${trainingCpu.toFixed(0)} training CPU s`, iteration);
  }
}
const annealSteps = number('anneal');
if (annealSteps > 0) {
  const annealStart = cpuSeconds();
  const annealed = linearAnneal({ from: learningRate, steps: annealSteps });
  for (let step = 0; step < annealSteps; step++) {
    await randomBatchSftStep(policy, sftSource(), rng, { batchSize: 32, learningRate: annealed(step) });
  }
  trainingCpu += cpuSeconds() - annealStart;
  await evaluateBoth(
    `after ${annealSteps} annealing steps, ${trainingCpu.toFixed(0)} training CPU s`,
    number('iterations') + annealSteps,
  );
}
