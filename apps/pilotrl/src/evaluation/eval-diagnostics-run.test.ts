// Real evaluations write their diagnostics: ALFWorld played by a random policy through the plan-step
// vocabulary records the step checks the plan-follow rate is read from and plays the split again
// with the oracle's plans; a tiny training run writes the figures to evals.jsonl, its eval lines and
// its report.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRandomPolicy } from '@pilotrl/agent';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/curriculum-config';
import { train } from '../library';
import { readJsonl } from '../run/jsonl';
import { runEnvsFor } from '../run/run-envs';
import { evalRecordSchema } from '../run/run-records';
import { oneJointStage, tinyCorridorConfig } from '../tiny-corridor.testing';
import { evaluateEnvs } from './evaluate-envs';

describe('an evaluation with diagnostics', () => {
  it('records step checks of plans in the vocabulary and plays the split again with the oracle plans', async () => {
    const config = parseConfig({
      name: 'diagnostics-alfworld',
      env: { id: 'alfworld', maxSteps: 8 },
      policy: { size: 'tiny', contextLength: 4096 },
      agent: {
        paradigm: 'adaplan',
        prompt: 'view',
        actionSpace: 'choice',
        plan: 'steps',
        planRevision: 'every-turn',
        maxPlanSteps: 4,
      },
      stages: [oneJointStage],
      eval: { episodes: 3, splits: ['valid_unseen'], oraclePlan: true },
    });
    const { records, episodes } = await evaluateEnvs(
      runEnvsFor(config),
      createRandomPolicy({ seed: 3 }),
      { ...config.eval, seed: 0 },
      { step: 0, phase: 'eval' },
    );
    // The caller's episodes are the policy's own, each with its step checks.
    expect(episodes).toHaveLength(3);
    expect(episodes.every((episode) => episode.stepChecks !== undefined)).toBe(true);
    expect(episodes.every((episode) => episode.planHistory[0]?.source === 'policy')).toBe(true);

    const [record] = records;
    const { planFollow, revisions, errorsByTurn } = record!.diagnostics!;
    const turns = episodes.reduce((sum, episode) => sum + episode.turns.length, 0);
    expect(planFollow!.episodes).toBe(3);
    expect(planFollow!.turns).toBeGreaterThan(0);
    expect(planFollow!.turns).toBeLessThanOrEqual(turns);
    expect(planFollow!.followed).toBe(
      episodes.reduce((sum, episode) => sum + episode.stepChecks!.passed.length, 0),
    );
    expect(revisions!.revised.episodes + revisions!.unrevised.episodes).toBe(3);
    expect(errorsByTurn.reduce((sum, bucket) => sum + bucket.turns, 0)).toBe(turns);
    expect(errorsByTurn.map((bucket) => [bucket.from, bucket.to])).toEqual([
      [1, 5],
      [6, 10],
    ]);

    // The oracle's plan kept in force: no revision, and its steps checked too.
    const oracle = record!.oraclePlan!;
    expect(oracle.success.total).toBe(3);
    expect(oracle.diagnostics.revisions!.perEpisode).toBe(0);
    expect(oracle.diagnostics.planFollow!.episodes).toBe(3);
    expect(evalRecordSchema.parse(JSON.parse(JSON.stringify(record)))).toEqual(record);
  }, 60_000);

  it('refuses eval.oraclePlan for ReAct agents before any episode runs', async () => {
    const config = tinyCorridorConfig(0, {
      agent: { paradigm: 'react' },
      eval: { episodes: 1, splits: ['valid_unseen'], oraclePlan: true },
    });
    await expect(
      evaluateEnvs(
        runEnvsFor(config),
        createRandomPolicy(),
        { ...config.eval, seed: 0 },
        { step: 0, phase: 'eval' },
      ),
    ).rejects.toThrow(/^eval\.oraclePlan gives an AdaPlan agent the oracle's plan/);
  });

  it('refuses eval.oraclePlan for ReAct agents before a run trains anything', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'pilotrl-diagnostics-')), 'run');
    const config = tinyCorridorConfig(1, {
      agent: { paradigm: 'react' },
      eval: { episodes: 1, splits: ['valid_unseen'], oraclePlan: true },
    });
    await expect(train(config, { out })).rejects.toThrow(/^eval\.oraclePlan gives an AdaPlan agent/);
    expect(existsSync(out)).toBe(false);
  });

  it('is written by a training run to evals.jsonl, its eval lines and its report', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'pilotrl-diagnostics-')), 'run');
    const lines: string[] = [];
    const config = tinyCorridorConfig(0, {
      eval: { episodes: 2, every: 10, splits: ['valid_unseen'], oraclePlan: true },
    });
    await train(config, { out, log: (line) => lines.push(line), report: true });
    const written = readJsonl(join(out, 'evals.jsonl')) as Record<string, unknown>[];
    expect(written).toHaveLength(1);
    expect(Object.keys(written[0]!)).toEqual(expect.arrayContaining(['diagnostics', 'oraclePlan']));
    const record = evalRecordSchema.parse(written[0]);
    // The corridor has no step checks: no plan-follow rate, the rest measured.
    expect(record.diagnostics!.planFollow).toBeNull();
    expect(record.diagnostics!.revisions).not.toBeNull();
    expect(record.diagnostics!.errorsByTurn[0]).toMatchObject({ from: 1, to: 5 });
    const { success } = record;
    expect(record.diagnostics!.loops!.lostEpisodes).toBe(success.total - success.successes);
    expect(record.oraclePlan!.success.total).toBe(2);
    expect(lines.find((line) => line.startsWith('eval after'))).toMatch(
      /valid_unseen \S+ \[\S+, \S+\] \(revisions\/ep \d\.\d\d, looping (?:\S+%|-), oracle plan \S+%\)/,
    );
    const html = readFileSync(join(out, 'report', 'index.html'), 'utf8');
    expect(html).toContain('<table id="diagnostics-table">');
    expect(html).toContain('<th>looping turns</th>');
    expect(html).toMatch(/<tr><td>sft<\/td><td>valid_unseen<\/td><td>own<\/td>/);
    expect(html).toMatch(/<tr><td>sft<\/td><td>valid_unseen<\/td><td>oracle's<\/td>/);
  }, 120_000);
});
