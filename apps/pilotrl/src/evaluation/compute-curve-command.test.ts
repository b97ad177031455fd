// `pilotrl compute-curve` end to end on the testkit corridor: two seeds trained, the greedy
// evaluation at each phase end, best-of-N and look-ahead from the SFT and last checkpoints, the
// results section and plot written, and a second call measuring nothing again.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnPilotrl } from '../tiny-corridor.testing';
import { readCurvePoints } from './compute-curve';

// AdaPlan choosing among the corridor's commands, so every turn steps the env.
const curveYaml = [
  'name: curve',
  'seed: 7',
  'env: { id: testkit/corridor, maxSteps: 6 }',
  'policy: { size: tiny, tokenizerCorpusTasks: 10, vocabSize: 360, contextLength: 384 }',
  'agent: { paradigm: adaplan, prompt: compact, actionSpace: choice, planRevision: never, historyWindow: 1, maxPlanTokens: 24 }',
  'sft: { demonstrations: 10, steps: 4, batchSize: 4, learningRate: 0.01, stepsPerIteration: 2, warmupSteps: 1 }',
  'stages:',
  '  - { kind: joint, iterations: 2, tasksPerIteration: 2, groupSize: 2, learningRate: 0.001, rewards: { outcome: 1 } }',
  'eval: { episodes: 2, splits: [valid_unseen] }',
  'sampleEpisodes: 1',
].join('\n');

describe('pilotrl compute-curve', () => {
  it('measures training and search points over seeds, writes the section, and resumes without measuring twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-curve-'));
    const config = join(dir, 'tiny.yaml');
    writeFileSync(config, curveYaml);
    const results = join(dir, 'docs', 'RESULTS.md');
    const runsDir = join(dir, 'runs');
    const args = [
      'compute-curve',
      '--config',
      config,
      '--seeds',
      '1,2',
      '--episodes',
      '4',
      '--best-of',
      '2:judge',
      '--lookahead',
      '2x1:rollout',
      '--lookahead-from',
      'last',
      '--runs-dir',
      runsDir,
      '--results',
      results,
    ];
    const first = await spawnPilotrl(args);
    expect(first.code, first.stderr).toBe(0);

    // 2 seeds × (best-of from both checkpoints, look-ahead from the last), each once, with its compute.
    const points = readCurvePoints(join(runsDir, 'search-points.jsonl'));
    expect(points.map((p) => [p.seed, p.phase, p.search])).toEqual([
      [1, 'sft', 'best-of-2 (judge)'],
      [1, 'joint', 'best-of-2 (judge)'],
      [1, 'joint', 'lookahead w2 d1 (rollout)'],
      [2, 'sft', 'best-of-2 (judge)'],
      [2, 'joint', 'best-of-2 (judge)'],
      [2, 'joint', 'lookahead w2 d1 (rollout)'],
    ]);
    for (const point of points) {
      expect(point.episodes).toBe(4);
      expect(point.evalCpuSeconds).toBeGreaterThan(0);
      expect(point.trainCpuSeconds).toBeGreaterThan(0);
      expect(point.envSteps).toBeGreaterThan(0);
    }
    // The SFT checkpoint's training compute is less than the last one's.
    const sft = points.find((p) => p.seed === 1 && p.phase === 'sft')!;
    const last = points.find((p) => p.seed === 1 && p.phase === 'joint')!;
    expect(sft.trainCpuSeconds).toBeLessThan(last.trainCpuSeconds);
    // Look-ahead plays candidates on copies: more env steps than the greedy episodes' own.
    const greedySteps = readFileSync(join(runsDir, 'train-seed1', 'evals.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { meanSteps: number; success: { total: number } })
      .map((record) => record.meanSteps * record.success.total);
    const lookahead = points.find((p) => p.seed === 1 && p.search.startsWith('lookahead'))!;
    expect(lookahead.envSteps).toBeGreaterThan(greedySteps.at(-1)!);

    const page = readFileSync(results, 'utf8');
    expect(page).toContain('<!-- section:compute-curve -->');
    expect(page).toContain('## Train-time against test-time compute on valid_unseen');
    expect(page).toContain('2 seed(s) (1, 2)');
    expect(page).toMatch(/\| after SFT \| greedy \| /);
    expect(page).toMatch(/\| after joint \(phase 2\) \| lookahead w2 d1 \(rollout\) \| /);
    expect(page).toContain(
      '--best-of 2:judge --best-of-from sft,last --lookahead 2x1:rollout --lookahead-from last',
    );
    expect(existsSync(join(dir, 'docs', 'results', 'compute-curve.png'))).toBe(true);

    const second = await spawnPilotrl(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('seed 2 already trained');
    expect(second.stderr).not.toContain('from the end of');
    expect(readCurvePoints(join(runsDir, 'search-points.jsonl'))).toHaveLength(6);
  }, 300_000);

  it('refuses a phase the curriculum does not have and a malformed search before training', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-curve-bad-'));
    const config = join(dir, 'tiny.yaml');
    writeFileSync(config, curveYaml);
    const base = ['compute-curve', '--config', config, '--runs-dir', join(dir, 'runs')];
    const phase = await spawnPilotrl([...base, '--best-of-from', 'follow']);
    expect(phase.code).toBe(1);
    expect(phase.stderr).toContain(
      '--best-of-from follow: curriculum "curve" has no phase of that name (phases: sft, joint; or last)',
    );
    const width = await spawnPilotrl([...base, '--lookahead', '4:rollout']);
    expect(width.code).toBe(1);
    expect(width.stderr).toContain('--lookahead 4: give width x depth, e.g. 4x2');
    const zero = await spawnPilotrl([...base, '--best-of', '0']);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toMatch(/--n must be at least 1/);
    expect(existsSync(join(dir, 'runs', 'train-seed1'))).toBe(false);
  }, 60_000);
});
