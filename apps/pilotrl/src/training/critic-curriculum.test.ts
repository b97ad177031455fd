// PPO with a critic through the curriculum: a value head trained beside the policy on GAE returns,
// its fit reported as explained variance in the metrics and the report.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl } from '../run/jsonl';
import { spawnPilotrl } from '../tiny-corridor.testing';

const criticYaml = [
  'name: critic-ppo',
  'seed: 2',
  'env: { id: testkit/corridor, maxSteps: 6 }',
  'policy: { size: tiny, tokenizerCorpusTasks: 8, vocabSize: 340, contextLength: 320, valueHead: true }',
  'agent: { paradigm: react, prompt: compact, actionSpace: choice, historyWindow: 1, maxActionTokens: 10 }',
  'sft: { demonstrations: 12, steps: 12, batchSize: 8, learningRate: 0.01, stepsPerIteration: 12, warmupSteps: 1 }',
  'stages:',
  '  - { kind: joint, iterations: 10, tasksPerIteration: 4, groupSize: 4, estimator: gae, epochs: 2, learningRate: 0.01, rewards: { outcome: 1 } }',
  'eval: { episodes: 4, every: 100, splits: [valid_seen] }',
  'checkpoint: { every: 100, keep: 1 }',
  'sampleEpisodes: 1',
].join('\n');

describe('a curriculum stage trained by PPO with a critic', () => {
  it("reports the value head's explained variance at every update, in the metrics and the report", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-critic-'));
    const config = join(dir, 'critic.yaml');
    writeFileSync(config, criticYaml);
    const out = join(dir, 'run');
    const { code, stderr } = await spawnPilotrl(['train', '--config', config, '--out', out]);
    expect(code, stderr).toBe(0);

    const metrics = readJsonl(join(out, 'metrics.jsonl')) as Record<string, number>[];
    const explained = metrics
      .filter((m) => (m.phase as unknown) === 'joint' && 'losses/explained_variance' in m)
      .map((m) => m['losses/explained_variance']!);
    // One figure per update whose returns varied, measured before the update moved the head. On
    // the corridor the outcome of a sampled walk is mostly luck, so the figure stays near 0 here;
    // that the head's fit rises when returns are predictable is tested in @pilotrl/optim.
    expect(explained.length).toBeGreaterThanOrEqual(8);
    for (const value of explained) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeLessThanOrEqual(1);
    }
    expect(new Set(explained).size).toBe(explained.length);
    expect(metrics.some((m) => typeof m['losses/value_loss'] === 'number')).toBe(true);

    const report = readFileSync(join(out, 'report', 'index.html'), 'utf8');
    expect(report).toContain('Value head: explained variance of the returns');
  }, 120_000);
});
