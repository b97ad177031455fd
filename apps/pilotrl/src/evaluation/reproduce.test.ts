import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { parseConfig } from '../config/curriculum-config';
import { presetConfig } from '../config/presets';
import { readManifest } from '../run/run-dir';
import { resultsPage, VARIANTS, type VariantResult, variantConfig } from './reproduce';

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
});

describe('the results page', () => {
  const result = (variant: 'stage1' | 'stage1+2', seed: number, judgeScore: number): VariantResult => ({
    variant,
    seed,
    runDir: `runs/${variant}-seed${seed}`,
    success: { valid_unseen: { successes: 20, total: 200, rate: 0.1 } },
    judgeScore: { valid_unseen: judgeScore },
    byTaskType: { valid_unseen: { pick_and_place_simple: { successes: 20, total: 200 } } },
  });
  const claim = (results: VariantResult[]) =>
    resultsPage(results, [], '/tmp')
      .markdown.split('\n')
      .find((line) => line.startsWith('- Stage 2 raises'));

  it('states the plan-quality claim from seeds, and not from one seed', () => {
    expect(claim([result('stage1', 1, 4.6), result('stage1+2', 1, 4.61)])).toContain(
      'not shown (4.61 vs 4.60; one seed gives no interval over seeds)',
    );
    const seeds = (variant: 'stage1' | 'stage1+2', scores: number[]) =>
      scores.map((score, i) => result(variant, i + 1, score));
    expect(claim([...seeds('stage1', [3.0, 3.05, 3.1]), ...seeds('stage1+2', [4.0, 4.05, 4.1])])).toContain(
      ': shown (4.05 vs 3.05',
    );
    expect(claim([...seeds('stage1', [4.0, 4.05, 4.1]), ...seeds('stage1+2', [3.0, 3.05, 3.1])])).toContain(
      ': contradicted (3.05 vs 4.05',
    );
    expect(claim([...seeds('stage1', [3.0, 4.0]), ...seeds('stage1+2', [3.5, 4.5])])).toContain(
      ': not shown (higher',
    );
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
    expect(page).toMatch(/\| ReAct: SFT, then outcome RL \(no plans\) \| \d+\.\d% \[/);
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
