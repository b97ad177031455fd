import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl } from '../run/jsonl';
import {
  eventsWithoutMeasuredCosts,
  resumableCurriculumYaml,
  spawnPilotrl,
  withoutMeasuredCosts,
} from '../tiny-corridor.testing';

describe('pilotrl train --resume', () => {
  it('N iterations equal N/2, a kill -9, a resume and N/2 more, metric for metric', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-resume-'));
    const config = join(dir, 'tiny.yaml');
    writeFileSync(config, resumableCurriculumYaml({ name: 'resume-test', evalEvery: 1, checkpointEvery: 2 }));

    const straight = join(dir, 'straight');
    const full = await spawnPilotrl(['train', '--config', config, '--out', straight, '--no-report']);
    expect(full.code, full.stderr).toBe(0);

    const interrupted = join(dir, 'interrupted');
    const killed = await spawnPilotrl(
      ['train', '--config', config, '--out', interrupted, '--no-report'],
      (stderr, child) => {
        if (stderr.includes('(global iteration 2)')) child.kill('SIGKILL');
      },
    );
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(join(interrupted, 'checkpoints', 'iter-000004'))).toBe(false);

    const resumed = await spawnPilotrl(['train', '--resume', interrupted, '--no-report']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resuming at joint iteration 0 (global 2)');

    for (const file of ['metrics.jsonl', 'evals.jsonl', 'episodes.jsonl']) {
      const expected = withoutMeasuredCosts(readJsonl(join(straight, file)));
      expect(expected.length).toBeGreaterThan(1);
      expect(withoutMeasuredCosts(readJsonl(join(interrupted, file))), file).toEqual(expected);
    }
    // The TensorBoard event file too: cut back with the JSONL logs, so no step is there twice.
    const events = eventsWithoutMeasuredCosts(straight);
    expect(events.map((event) => event.step)).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4]);
    expect(eventsWithoutMeasuredCosts(interrupted)).toEqual(events);
    const metrics = readJsonl(join(straight, 'metrics.jsonl')) as Record<string, unknown>[];
    expect(metrics.map((m) => m.phase)).toEqual(['sft', 'sft', 'joint', 'joint']);
    // Training compute accumulates over the run, across the kill and resume too.
    for (const run of [straight, interrupted]) {
      const records = readJsonl(join(run, 'metrics.jsonl')) as Record<string, number>[];
      records.forEach((record, i) => {
        expect(record['compute/iteration_cpu_seconds']).toBeGreaterThan(0);
        const before = i === 0 ? 0 : records[i - 1]!['compute/train_cpu_seconds']!;
        expect(record['compute/train_cpu_seconds']).toBeCloseTo(
          before + record['compute/iteration_cpu_seconds']!,
          6,
        );
      });
      for (const record of readJsonl(join(run, 'evals.jsonl')) as { cpuSeconds: number }[]) {
        expect(record.cpuSeconds).toBeGreaterThan(0);
      }
    }
    // The resumed half trains (optimizer state and weights restored), not only samples.
    expect(metrics[2]!['charts/updated']).toBe(1);
    expect(readFileSync(join(interrupted, 'checkpoints', 'latest'), 'utf8').trim()).toBe('iter-000004');
  }, 180_000);

  it('resumes expert iteration mid-stage with the steps it had kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-resume-ei-'));
    const config = join(dir, 'ei.yaml');
    writeFileSync(
      config,
      [
        'name: resume-ei',
        'seed: 3',
        'env: { id: alfworld, maxSteps: 15 }',
        'policy: { size: tiny, tokenizerCorpusTasks: 8, vocabSize: 360, contextLength: 1024 }',
        'agent: { paradigm: react, prompt: view, actionSpace: choice }',
        'sft: { demonstrations: 8, steps: 16, batchSize: 8, learningRate: 0.01, stepsPerIteration: 8, warmupSteps: 1 }',
        'stages:',
        '  - { kind: joint, algorithm: expert-iteration, expertIteration: { sftSteps: 2, batchSize: 4, mix: 0.5 }, iterations: 3, tasksPerIteration: 8, groupSize: 1, learningRate: 0.001, rewards: { outcome: 1 } }',
        'eval: { episodes: 2, every: 10, splits: [valid_unseen] }',
        'checkpoint: { every: 3, keep: 3 }',
        'sampleEpisodes: 1',
      ].join('\n'),
    );
    const straight = join(dir, 'straight');
    const full = await spawnPilotrl(['train', '--config', config, '--out', straight, '--no-report']);
    expect(full.code, full.stderr).toBe(0);

    const interrupted = join(dir, 'interrupted');
    const killed = await spawnPilotrl(
      ['train', '--config', config, '--out', interrupted, '--no-report'],
      (stderr, child) => {
        if (stderr.includes('(global iteration 3)')) child.kill('SIGKILL');
      },
    );
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(join(interrupted, 'checkpoints', 'iter-000003', 'phase-state.json'))).toBe(true);
    const resumed = await spawnPilotrl(['train', '--resume', interrupted, '--no-report']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resuming at joint iteration 1 (global 3)');

    const metrics = readJsonl(join(straight, 'metrics.jsonl')) as Record<string, number>[];
    expect(metrics.map((m) => m.phase)).toEqual(['sft', 'sft', 'joint', 'joint', 'joint']);
    // Something was kept before the checkpoint, so the resumed run depends on restoring it.
    expect(metrics[2]!['expert_iteration/kept_total']).toBeGreaterThan(0);
    expect(metrics[4]!['expert_iteration/kept_total']).toBeGreaterThan(
      metrics[2]!['expert_iteration/kept_total']!,
    );
    for (const file of ['metrics.jsonl', 'evals.jsonl', 'episodes.jsonl']) {
      expect(withoutMeasuredCosts(readJsonl(join(interrupted, file))), file).toEqual(
        withoutMeasuredCosts(readJsonl(join(straight, file))),
      );
    }
  }, 300_000);
});
