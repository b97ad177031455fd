import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { writeReport } from '../reporting/report';
import { readJsonl } from '../run/jsonl';
import { drawEnvCounts, shareByWeight } from '../run/run-envs';
import { spawnPilotrl, withoutMeasuredCosts } from '../tiny-corridor.testing';

// Corridor three times as often as key-door; key-door's agent is ReAct with a longer history.
const mixtureYaml = [
  'name: mixture-test',
  'seed: 5',
  'env:',
  '  mixture:',
  '    - { id: testkit/corridor, weight: 3, maxSteps: 6 }',
  '    - { id: testkit/key-door, weight: 1, maxSteps: 8, agent: { paradigm: react, historyWindow: 2 } }',
  'policy: { size: tiny, tokenizerCorpusTasks: 8, vocabSize: 360, contextLength: 384 }',
  'agent: { paradigm: adaplan, prompt: compact, planRevision: never, historyWindow: 1, maxPlanTokens: 24, maxActionTokens: 12 }',
  'sft: { demonstrations: 8, steps: 4, batchSize: 4, learningRate: 0.01, stepsPerIteration: 2, warmupSteps: 1 }',
  'stages:',
  // Stage 1: corridor follows the oracle's plans; key-door, a ReAct env, plays it without plans.
  '  - { kind: follow, iterations: 2, tasksPerIteration: 8, groupSize: 2, learningRate: 0.001, rewards: { outcome: 1, plan_adherence: 0.5 } }',
  'eval: { episodes: 2, every: 10, splits: [valid_seen, valid_unseen] }',
  'checkpoint: { every: 2, keep: 2 }',
  'sampleEpisodes: 1',
].join('\n');

describe('env mixture shares', () => {
  it('shares fixed budgets by weight, every env getting some', () => {
    expect(shareByWeight(10, [{ weight: 3 }, { weight: 1 }])).toEqual([8, 2]);
    expect(shareByWeight(8, [{ weight: 1 }, { weight: 1 }, { weight: 1 }])).toEqual([3, 3, 2]);
    expect(shareByWeight(3, [{ weight: 100 }, { weight: 1 }, { weight: 1 }])).toEqual([1, 1, 1]);
    expect(shareByWeight(5, [{ weight: 1 }])).toEqual([5]);
  });

  it("draws each task's env by weight from the run's RNG, the same for the same seed", () => {
    const envs = [{ weight: 3 }, { weight: 1 }];
    const counts = drawEnvCounts(createRng(1), 4000, envs);
    expect(counts[0]! + counts[1]!).toBe(4000);
    expect(counts[0]! / 4000).toBeCloseTo(0.75, 1);
    expect(drawEnvCounts(createRng(1), 4000, envs)).toEqual(counts);
    // One env takes every task without touching the RNG, so single-env runs are as before.
    const rng = createRng(9);
    expect(drawEnvCounts(rng, 7, [{ weight: 1 }])).toEqual([7]);
    expect(rng.state()).toEqual(createRng(9).state());
  });
});

describe('pilotrl train on an env mixture', () => {
  it('trains on every env by weight, evaluates and reports per env, and resumes exactly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-mixture-'));
    const config = join(dir, 'mixture.yaml');
    writeFileSync(config, mixtureYaml);

    const straight = join(dir, 'straight');
    const full = await spawnPilotrl(['train', '--config', config, '--out', straight, '--no-report']);
    expect(full.code, full.stderr).toBe(0);
    // Demonstrations (and the tokenizer corpus with them) come from each env's oracle.
    expect(full.stderr).toMatch(/sft testkit\/corridor: \d+ demonstration turns from the 6 of 6 tasks/);
    expect(full.stderr).toMatch(/sft testkit\/key-door: \d+ demonstration turns from the 2 of 2 tasks/);

    const metrics = readJsonl(join(straight, 'metrics.jsonl')) as Record<string, number>[];
    const stage = metrics.filter((m) => (m.phase as unknown) === 'follow');
    const played = (env: string) => stage.reduce((sum, m) => sum + (m[`charts/episodes/${env}`] ?? 0), 0);
    // 16 tasks in groups of 2, drawn 3:1.
    expect(played('testkit/corridor') + played('testkit/key-door')).toBe(32);
    expect(played('testkit/key-door')).toBeGreaterThan(0);
    expect(played('testkit/corridor')).toBeGreaterThan(played('testkit/key-door'));
    expect(stage[0]).toHaveProperty(['charts/success_rate/testkit/corridor']);
    expect(stage[0]!['rewards/plan_adherence']).toBeGreaterThanOrEqual(0);

    const evals = readJsonl(join(straight, 'evals.jsonl')) as Record<string, unknown>[];
    const finals = evals.filter((e) => e.phase === 'follow');
    expect(finals.map((e) => [e.env, e.split, e.paradigm])).toEqual([
      ['testkit/corridor', 'valid_seen', 'adaplan'],
      ['testkit/corridor', 'valid_unseen', 'adaplan'],
      ['testkit/key-door', 'valid_seen', 'react'],
      ['testkit/key-door', 'valid_unseen', 'react'],
    ]);
    const manifest = JSON.parse(readFileSync(join(straight, 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.dataHashes)).toContain('tasks/testkit/key-door/valid_unseen');
    const report = readFileSync(writeReport(straight).html, 'utf8');
    expect(report).toContain('<th>env</th>');
    expect(report).toContain('testkit/key-door valid_unseen');

    const interrupted = join(dir, 'interrupted');
    const killed = await spawnPilotrl(
      ['train', '--config', config, '--out', interrupted, '--no-report'],
      (stderr, child) => {
        if (stderr.includes('(global iteration 2)')) child.kill('SIGKILL');
      },
    );
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await spawnPilotrl(['train', '--resume', interrupted, '--no-report']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resuming at follow iteration 0 (global 2)');
    for (const file of ['metrics.jsonl', 'evals.jsonl', 'episodes.jsonl']) {
      expect(withoutMeasuredCosts(readJsonl(join(interrupted, file))), file).toEqual(
        withoutMeasuredCosts(readJsonl(join(straight, file))),
      );
    }
  }, 240_000);
});
