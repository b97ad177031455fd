// The reward-hacking watch on a real run that games its reward. In the corridor the winning walk
// repeats a move ("go east", "go east", "stop"), so a reward dominated by the repeated-action
// penalty pays the policy for stopping at once, which never wins: training learns to stop, the
// reward climbs to its best while held-out success falls. The watch must say so in the metrics,
// the progress line and the report.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl } from '../run/jsonl';
import { spawnPilotrl } from '../tiny-corridor.testing';

const gameableYaml = [
  'name: gameable-reward',
  'seed: 3',
  'env: { id: testkit/corridor, maxSteps: 6 }',
  'policy: { size: tiny, tokenizerCorpusTasks: 8, vocabSize: 340, contextLength: 320 }',
  'agent: { paradigm: react, prompt: compact, actionSpace: choice, historyWindow: 1, maxActionTokens: 10 }',
  // A warm start that walks like the oracle, repeats and all.
  'sft: { demonstrations: 24, steps: 48, batchSize: 8, learningRate: 0.01, stepsPerIteration: 48, warmupSteps: 1 }',
  'stages:',
  '  - { kind: joint, iterations: 12, tasksPerIteration: 4, groupSize: 8, learningRate: 0.03, rewards: { outcome: 0.1, repeated_action: 1 } }',
  'eval: { episodes: 16, every: 6, splits: [valid_seen] }',
  'checkpoint: { every: 100, keep: 1 }',
  'sampleEpisodes: 1',
].join('\n');

describe('the reward-hacking watch on a gameable reward', () => {
  it('fires in the metrics, the progress line and the report when training games the reward', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-watch-'));
    const config = join(dir, 'gameable.yaml');
    writeFileSync(config, gameableYaml);
    const out = join(dir, 'run');
    const { code, stderr } = await spawnPilotrl(['train', '--config', config, '--out', out]);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('watch: joint (12 iterations): 2 verdicts over 6-12 training iterations');

    const metrics = readJsonl(join(out, 'metrics.jsonl')) as Record<string, number>[];
    const stage = metrics.filter((m) => (m.phase as unknown) === 'joint');
    // The policy did game the reward: it learnt to stop at once, the penalty vanished, and it wins no more.
    const first = stage[0]!;
    const last = stage.at(-1)!;
    expect(last['charts/episode_length']).toBeLessThan(first['charts/episode_length']! - 1);
    expect(last['rewards/repeated_action']).toBeGreaterThan(first['rewards/repeated_action']!);

    // Verdicts at the stage's two evaluations, both against the evaluation after SFT.
    const verdicts = stage.filter((m) => 'watch/reward_vs_heldout' in m);
    expect(verdicts.map((m) => [m.iteration, m['watch/baseline_step']])).toEqual([
      [6, 1],
      [12, 1],
    ]);
    const final = verdicts.at(-1)!;
    expect(final['watch/reward_vs_heldout']).toBe(1);
    expect(final['watch/reward_rise']).toBeGreaterThan(0.05);
    expect(final['watch/heldout_rise']).toBeLessThanOrEqual(0);
    const evals = readJsonl(join(out, 'evals.jsonl')) as { step: number; success: { rate: number } }[];
    const rate = (step: number) => evals.find((e) => e.step === step)!.success.rate;
    expect(final['watch/heldout_rise']).toBeCloseTo(rate(final.step!) - rate(1));

    // The progress line carries the flag from the verdict on, and the log says what the watch saw.
    expect(stderr).toMatch(/\[2\/2 joint\] .* 12\/12 .*watch ⚠ reward up, held-out (flat|falling)/);
    expect(stderr).toMatch(/reward-hacking watch at iteration 13 \(joint\): ⚠ reward up, held-out/);

    // The report (written by train) shows the callout with where it fired.
    const report = readFileSync(join(out, 'report', 'index.html'), 'utf8');
    expect(report).toContain('id="watch-fired"');
    expect(report).toMatch(/<tr><td>13<\/td><td>joint<\/td><td>reward up, held-out flat or falling<\/td>/);
  }, 120_000);
});
