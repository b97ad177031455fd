// Does the reference judge tell plans apart? Scores each ALFWorld episode of an episode file with
// the reference judge per step (PilotRL's stage-2 judge: the plan in force at each step, then
// averaged), once with the plan alone (the old inputs) and once with the step's action, the env's
// answer and the step checks (the new), and reports the spread of the episodes' mean scores and
// their Spearman rank correlation with success. The oracle's reference comes from the generated
// ALFWorld games the episodes were played on.
//   node --conditions=@pilotrl/source --import tsx packages/rewards/bench/judge-discrimination.ts <episodes.jsonl>
import { readFileSync } from 'node:fs';
import {
  type Episode,
  episodeSchema,
  type JudgeInput,
  type JudgeResult,
  mean,
  parseOrThrow,
} from '@pilotrl/core';
import { createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { perStepJudgeInputs } from '../src/judge-reward';
import { createReferenceJudge } from '../src/reference-judge';

const path = process.argv[2];
if (path === undefined) {
  console.error('usage: judge-discrimination.ts <episodes.jsonl> (one Episode JSON per line)');
  process.exit(2);
}
const episodes: Episode[] = readFileSync(path, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line, index) => parseOrThrow(episodeSchema, JSON.parse(line), `${path} line ${index + 1}`));

const tasks = createGeneratedTaskSource();
const judge = createReferenceJudge();
const rubricMean = (verdict: JudgeResult) =>
  (verdict.correctness.score + verdict.followability.score + verdict.standardization.score) / 3;

/** Ranks with ties given their average rank. */
function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const result = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.value === order[start]!.value) end++;
    for (let k = start; k <= end; k++) result[order[k]!.index] = (start + end) / 2;
    start = end + 1;
  }
  return result;
}

function pearson(x: readonly number[], y: readonly number[]): number {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  x.forEach((xi, i) => {
    sxy += (xi - mx) * (y[i]! - my);
    sxx += (xi - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  });
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy);
}

const spearman = (x: readonly number[], y: readonly number[]) => pearson(ranks(x), ranks(y));
const sd = (x: readonly number[]) => Math.sqrt(mean(x.map((v) => (v - mean(x)) ** 2)));

// Means are rounded so that float noise (the mean of 18 equal scores against that of 25) breaks no ties.
const episodeScore = (verdicts: readonly JudgeResult[]) =>
  Math.round(mean(verdicts.map(rubricMean)) * 1e6) / 1e6;
const scored = { old: [] as number[], new: [] as number[] };
const won: number[] = [];
for (const episode of episodes) {
  const solution = await tasks.oracle!({ taskId: episode.taskId, split: episode.split, seed: episode.seed });
  const inputs = perStepJudgeInputs(episode, { plan: solution.plan, actions: solution.actions });
  if (inputs.length === 0) continue;
  const withoutStep = inputs.map(({ step: _, ...rest }): JudgeInput => rest);
  scored.old.push(episodeScore(await judge.judge(withoutStep)));
  scored.new.push(episodeScore(await judge.judge(inputs)));
  won.push(episode.won ? 1 : 0);
}

console.log(`${path}: ${won.length} episodes with a policy plan, ${won.filter(Boolean).length} won`);
for (const kind of ['old', 'new'] as const) {
  const x = scored[kind];
  console.log(
    `${kind} inputs: mean ${mean(x).toFixed(2)}, sd ${sd(x).toFixed(2)}, min ${Math.min(...x).toFixed(2)}, max ${Math.max(...x).toFixed(2)}, Spearman with success ${spearman(x, won).toFixed(2)}`,
  );
}
