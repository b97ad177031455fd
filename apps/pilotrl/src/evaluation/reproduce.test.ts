import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { parseConfig } from '../config/curriculum-config';
import { presetConfig } from '../config/presets';
import { readManifest } from '../run/run-dir';
import {
  resultsPage,
  VARIANTS,
  type Variant,
  type VariantResult,
  variantConfig,
  writeResultsPage,
} from './reproduce';
import { REPRODUCE_POINTS_FILE, readReproducePoints } from './reproduce-results';

describe('reproduction variants', () => {
  it('give every RL variant the same RL iterations, with the stage schedule of its name', () => {
    const base = presetConfig('quick');
    const total = base.stages.reduce((sum, s) => sum + s.iterations, 0);
    const configs = Object.fromEntries(VARIANTS.map((v) => [v, variantConfig(base, v, 2)]));
    for (const variant of VARIANTS.filter((v) => !v.endsWith('sft-only'))) {
      expect(
        configs[variant]!.stages.reduce((sum, s) => sum + s.iterations, 0),
        variant,
      ).toBe(total);
      expect(configs[variant]!.sft).toEqual(base.sft);
      expect(configs[variant]!.seed).toBe(2);
    }
    expect(configs.react!.agent.paradigm).toBe('react');
    expect(configs['react-sft-only']!.agent.paradigm).toBe('react');
    expect(configs['react-sft-only']!.stages).toEqual([]);
    expect(configs['sft-only']!.stages).toEqual([]);
    expect(configs['stage1+2+3']!.stages.map((s) => s.kind)).toEqual(['follow', 'plan', 'joint']);
    expect(configs['stage1+2']!.stages[1]!.rewards).toEqual({ outcome: 1, plan_quality: 0.5 });
    expect(configs['joint-only']!.stages.map((s) => s.kind)).toEqual(['joint']);
  });

  it('drop plan steps for the ReAct variant and keep them for the AdaPlan ones', () => {
    const base = parseConfig({
      ...presetConfig('quick'),
      agent: { ...presetConfig('quick').agent, actionSpace: 'choice', plan: 'steps' },
    });
    expect(variantConfig(base, 'react', 1).agent).toMatchObject({ paradigm: 'react', plan: 'free-text' });
    expect(variantConfig(base, 'stage1+2+3', 1).agent).toMatchObject({ paradigm: 'adaplan', plan: 'steps' });
  });

  it("make the ablation's adaptive agent revise on a stall where the base keeps its plan", () => {
    const base = presetConfig('quick');
    expect(base.agent.planRevision).toBe('never');
    const adaptive = variantConfig(base, 'adaptive', 1);
    expect(adaptive.agent.planRevision).toBe('on-stall');
    expect(adaptive.stages).toEqual(variantConfig(base, 'stage1+2+3', 1).stages);
    const revising = parseConfig({ ...base, agent: { ...base.agent, planRevision: 'every-turn' } });
    expect(variantConfig(revising, 'adaptive', 1).agent.planRevision).toBe('every-turn');
  });
});

describe('the results page', () => {
  const training = (stages: readonly string[]): VariantResult['training'] => ({
    sft: { demonstrations: 10, steps: 20, batchSize: 4 },
    stages: stages.map((kind) => ({
      kind,
      iterations: 2,
      tasksPerIteration: 8,
      groupSize: 1,
      algorithm: 'expert-iteration' as const,
      estimator: null,
      rewards: { outcome: 1 },
    })),
  });
  const result = (
    variant: Variant,
    seed: number,
    successes: number,
    judgeScore?: number,
    total = 200,
  ): VariantResult => ({
    variant,
    seed,
    runDir: `runs/${variant}-seed${seed}`,
    training: training(
      variant === 'stage1+2+3' ? ['follow', 'plan', 'joint'] : variant === 'stage1' ? ['follow'] : [],
    ),
    trainCpuSeconds: 100 + seed,
    success: { valid_unseen: { successes, total, rate: successes / total } },
    judgeScore: judgeScore === undefined ? {} : { valid_unseen: judgeScore },
    evalCpuSeconds: { valid_unseen: 10 },
    byTaskType: { valid_unseen: { pick_and_place_simple: { successes, total } } },
  });
  const line = (results: VariantResult[], start: string) =>
    resultsPage(results, [], '/tmp')
      .markdown.split('\n')
      .find((text) => text.startsWith(start));
  const judged = (results: VariantResult[]) => line(results, '- Stage 2 raises');
  const seeds = (variant: Variant, scores: number[]) =>
    scores.map((score, i) => result(variant, i + 1, 20, score));

  it('states the plan-quality claim from seeds, and not from one seed', () => {
    expect(judged([result('stage1', 1, 20, 4.6), result('stage1+2', 1, 20, 4.61)])).toContain(
      'not shown (4.61 vs 4.60; fewer than 2 seeds give no interval over seeds',
    );
    expect(judged([...seeds('stage1', [3.0, 3.1, 3.05]), ...seeds('stage1+2', [4.0, 4.2, 4.05])])).toContain(
      ': shown (4.08 vs 3.05: difference +1.03 [',
    );
    expect(judged([...seeds('stage1', [4.0, 4.2, 4.05]), ...seeds('stage1+2', [3.0, 3.1, 3.05])])).toContain(
      ': contradicted (3.05 vs 4.08',
    );
    expect(judged([...seeds('stage1', [3.0, 4.0]), ...seeds('stage1+2', [3.5, 4.4])])).toContain(
      ': not shown (3.95 vs 3.50: difference +0.45 [',
    );
    // Every seed moved by the same amount: an interval with no width calls nothing.
    expect(judged([...seeds('stage1', [3.0, 3.5, 4.0]), ...seeds('stage1+2', [3.5, 4.0, 4.5])])).toContain(
      'not shown (4.00 vs 3.50: difference +0.50 [+0.50, +0.50], paired by seed',
    );
  });

  // Per-seed successes out of 200 that move together from seed to seed: each seed of stage1+2+3
  // beats the seed's joint-only and ReAct runs by 4 to 6 episodes.
  const together = [
    ...[40, 60, 80].map((s, i) => result('stage1+2+3', i + 1, s)),
    ...[35, 55, 74].map((s, i) => result('joint-only', i + 1, s)),
    ...[35, 55, 74].map((s, i) => result('react', i + 1, s)),
  ];

  it('pairs by seed the variants that fork the same SFT run, and not ReAct against AdaPlan', () => {
    // joint-only forks the same SFT-only run of each seed: the paired interval sees the steady gain.
    expect(line(together, '- Progressive')).toContain(
      'shown (30.0% vs 27.3%: difference +2.7 points [+1.9, +3.4], paired by seed, 95% t-interval over 3 seeds; the interval excludes 0 above',
    );
    // ReAct trains its own SFT: the same numbers, unpaired, leave the seed spread in the interval.
    expect(line(together, '- AdaPlan (stages 1+2+3) beats ReAct')).toContain(
      'not shown (30.0% vs 27.3%: difference +2.7 points [-19.7, +25.1], unpaired (Welch), 95% t-interval over 3 and 3 seeds; the interval includes 0',
    );
  });

  it('decides on seeds where the pooled Wilson intervals alone would call it', () => {
    // 1000 episodes a seed: pooled 25.0% [23.5%, 26.6%] against 15.0% [13.8%, 16.3%], disjoint,
    // but one seed of three goes the other way.
    const results = [
      ...[300, 100, 350].map((s, i) => result('stage1+2+3', i + 1, s, undefined, 1000)),
      ...[150, 160, 140].map((s, i) => result('sft-only', i + 1, s, undefined, 1000)),
    ];
    expect(line(results, '- RL (stages 1+2+3) beats SFT only')).toBe(
      '- RL (stages 1+2+3) beats SFT only on valid_unseen: not shown (25.0% vs 15.0%: difference +10.0 points [-25.2, +45.2], paired by seed, 95% t-interval over 3 seeds; the interval includes 0; pooled for reference: 25.0% [23.5%, 26.6%] vs 15.0% [13.8%, 16.3%], 95% Wilson)',
    );
  });

  it("lists every seed's success with one decimal", () => {
    expect(resultsPage(together, [], '/tmp').markdown).toContain('(seeds: 20.0%, 30.0%, 40.0%)');
  });

  it('names the algorithm each variant was trained by', () => {
    const page = resultsPage(together, [], '/tmp').markdown;
    expect(page).toContain('| AdaPlan: SFT, then stages 1, 2 and 3 (PilotRL), by expert iteration |');
    expect(page).toContain(
      '- stage1+2+3: SFT (20 steps of 4 on 10 oracle demonstrations), then follow by expert iteration, 2 iteration(s) of 8 tasks × group 1, rewards outcome 1; then plan by expert iteration',
    );
  });

  it('writes the per-seed points beside the page, and renders the same page from them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-points-'));
    const results = [
      ...together,
      ...seeds('stage1', [3.0, 3.1, 3.05]),
      ...seeds('stage1+2', [4.0, 4.2, 4.05]),
    ];
    const page = resultsPage(results, ['pnpm pilotrl reproduce'], dir, 'tiny');
    writeResultsPage(page, join(dir, 'RESULTS.md'));
    const points = readReproducePoints(join(dir, 'results', REPRODUCE_POINTS_FILE));
    expect(points.results).toEqual(results);
    expect(points.unknown).toEqual([]);
    expect(resultsPage(points.results, ['pnpm pilotrl reproduce'], dir, 'tiny').markdown).toBe(page.markdown);
    expect(readFileSync(join(dir, 'RESULTS.md'), 'utf8')).toContain(
      `[results/${REPRODUCE_POINTS_FILE}](results/${REPRODUCE_POINTS_FILE})`,
    );
  });

  it('refuses a points file whose counts do not add up, saying where', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-points-'));
    const path = join(dir, REPRODUCE_POINTS_FILE);
    const bad = result('react', 1, 20);
    writeFileSync(
      path,
      JSON.stringify({
        format: 1,
        source: 'hand-made',
        unknown: [],
        results: [{ ...bad, success: { valid_unseen: { successes: 30, total: 20, rate: 1.5 } } }],
      }),
    );
    expect(() => readReproducePoints(path)).toThrow(/results\.0\.success\.valid_unseen/);
  });
});

describe('pilotrl reproduce', () => {
  it('trains variants × seeds on a tiny config and writes the results page with table, plots and commands', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-reproduce-'));
    const config = join(dir, 'tiny.json');
    writeFileSync(
      config,
      JSON.stringify(
        parseConfig({
          name: 'tiny',
          env: { id: 'testkit/corridor', maxSteps: 4 },
          policy: { size: 'tiny', tokenizerCorpusTasks: 5, vocabSize: 340, contextLength: 320 },
          agent: {
            prompt: 'compact',
            planRevision: 'never',
            historyWindow: 1,
            maxPlanTokens: 12,
            maxActionTokens: 10,
          },
          sft: {
            demonstrations: 5,
            steps: 1,
            batchSize: 2,
            learningRate: 1e-3,
            stepsPerIteration: 1,
            warmupSteps: 0,
          },
          stages: [
            {
              kind: 'joint',
              iterations: 3,
              tasksPerIteration: 1,
              groupSize: 2,
              learningRate: 1e-3,
              rewards: { outcome: 1 },
            },
          ],
          eval: { episodes: 2, every: 10, splits: ['valid_seen', 'valid_unseen'] },
          checkpoint: { every: 10, keep: 1 },
        }),
      ),
    );
    const results = join(dir, 'docs', 'RESULTS.md');
    let err = '';
    const io = {
      stdin: Readable.from([]),
      stdout: { write: () => true },
      stderr: {
        write: (text: string) => {
          err += text;
          return true;
        },
      },
    };
    const args = [
      'reproduce',
      '--config',
      config,
      '--seeds',
      '1,2',
      '--variants',
      'react,sft-only,stage1+2+3',
      '--runs-dir',
      join(dir, 'runs'),
      '--results',
      results,
    ];
    expect(await runCli(args, io), err).toBe(0);
    const page = readFileSync(results, 'utf8');
    expect(page).toMatch(
      /\| ReAct: SFT, then the joint stage \(outcome reward, no plans\), by policy gradient \(grpo advantages\) \| \d+\.\d% \[/,
    );
    expect(page).toContain('AdaPlan: SFT, then stages 1, 2 and 3 (PilotRL)');
    expect(page).toContain('Scale: base curriculum `tiny` on env `testkit/corridor`');
    expect(page).toContain(
      `pilotrl reproduce --config ${config} --seeds 1,2 --variants react,sft-only,stage1+2+3`,
    );
    expect(page).toMatch(
      /AdaPlan \(stages 1\+2\+3\) beats ReAct on valid_unseen: (shown|contradicted|not shown) \(/,
    );
    expect(page).toContain('## Success per task type');
    // The AdaPlan RL variant starts from the end of the SFT-only run of its seed; ReAct, whose
    // warm start was not asked for, trains its own.
    expect(readManifest(join(dir, 'runs', 'stage1+2+3-seed2')).forkedFrom?.run).toBe(
      join(dir, 'runs', 'sft-only-seed2'),
    );
    expect(readManifest(join(dir, 'runs', 'react-seed2')).forkedFrom).toBeUndefined();
    expect(page).toContain('![results-valid_seen.png](results/results-valid_seen.png)');
    expect(existsSync(join(dir, 'docs', 'results', 'results-valid_unseen.png'))).toBe(true);
    const points = readReproducePoints(join(dir, 'docs', 'results', REPRODUCE_POINTS_FILE));
    expect(points.results.map((r) => `${r.variant}-seed${r.seed}`)).toEqual([
      'react-seed1',
      'sft-only-seed1',
      'stage1+2+3-seed1',
      'react-seed2',
      'sft-only-seed2',
      'stage1+2+3-seed2',
    ]);
    for (const r of points.results) {
      expect(r.trainCpuSeconds, r.runDir).toBeGreaterThan(0);
      expect(r.success.valid_unseen?.total, r.runDir).toBe(2);
    }
    expect(points.results[0]!.training.stages).toMatchObject([
      { kind: 'joint', algorithm: 'policy-gradient', estimator: 'grpo', iterations: 3 },
    ]);
    expect(existsSync(join(dir, 'runs', 'stage1+2+3-seed2', 'report', 'index.html'))).toBe(true);
    // A second call finds every run finished and only rewrites the page.
    err = '';
    expect(await runCli(args, io)).toBe(0);
    expect(err.match(/already finished/g)?.length).toBe(6);
    // Without --results the page goes beside the runs, not into the working directory.
    expect(await runCli(args.slice(0, -2), io)).toBe(0);
    expect(readFileSync(join(dir, 'runs', 'RESULTS.md'), 'utf8')).toContain(
      `--runs-dir ${join(dir, 'runs')} --results ${join(dir, 'runs', 'RESULTS.md')}`,
    );
    expect(existsSync(join(dir, 'runs', 'results', 'results-valid_seen.png'))).toBe(true);
  }, 120_000);
});
