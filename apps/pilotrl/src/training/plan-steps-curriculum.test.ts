// PilotRL's three stages with plans in ALFWorld's plan-step vocabulary, trained by expert
// iteration: stage 1 follows the oracle's plan in step form without revising it, stages 2 and 3
// write and revise plans through the vocabulary, and the plan stage reports the judge's score.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Episode } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { readJsonl } from '../run/jsonl';

const appDir = join(import.meta.dirname, '..', '..');
const bin = join(appDir, 'src', 'bin.ts');

describe('a plan-step curriculum trained by expert iteration', () => {
  it('follows given plans in stage 1 (picked among candidates), writes and revises them in stages 2 and 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-plan-steps-'));
    const config = join(dir, 'steps.yaml');
    const ei = 'algorithm: expert-iteration, expertIteration: { sftSteps: 2, batchSize: 4, mix: 0.5 }';
    const stage = `${ei}, iterations: 1, tasksPerIteration: 4, groupSize: 1, learningRate: 0.001`;
    writeFileSync(
      config,
      [
        'name: plan-steps-test',
        'seed: 5',
        'env: { id: alfworld, maxSteps: 10 }',
        'policy: { size: tiny, tokenizerCorpusTasks: 4, vocabSize: 360, contextLength: 1024 }',
        'agent: { paradigm: adaplan, prompt: view, actionSpace: choice, plan: steps, planRevision: every-turn, maxPlanSteps: 4 }',
        'sft: { demonstrations: 4, steps: 4, batchSize: 8, learningRate: 0.01, stepsPerIteration: 4, warmupSteps: 1 }',
        'stages:',
        `  - { kind: follow, ${stage}, planCandidates: 3, rewards: { outcome: 1, plan_adherence: 0.5 } }`,
        `  - { kind: plan, ${stage}, rewards: { outcome: 1, plan_quality: 0.5 } }`,
        `  - { kind: joint, ${stage}, rewards: { outcome: 1 } }`,
        'eval: { episodes: 1, every: 10, splits: [valid_unseen] }',
        'sampleEpisodes: 4',
      ].join('\n'),
    );
    const out = join(dir, 'run');
    // Run asynchronously: a blocking child would keep the test worker from answering the runner.
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@pilotrl/source', '--import', 'tsx', bin, 'train', '--config', config, '--out', out],
      { cwd: appDir, encoding: 'utf8' },
    );
    // Demonstrations hold the plan-writing choices beside the commands.
    expect(stderr).toMatch(/sft: \d+ demonstration turns from the 4 of 4 tasks/);

    // The report reads back the sampled episodes, choice generations included.
    expect(existsSync(join(out, 'report', 'index.html'))).toBe(true);
    const metrics = readJsonl(join(out, 'metrics.jsonl')) as Record<string, number | string>[];
    expect(metrics.map((m) => m.phase)).toEqual(['sft', 'follow', 'plan', 'joint']);
    expect(metrics[2]!['charts/plan_judge_score']).toBeGreaterThanOrEqual(1);
    for (const stageMetrics of metrics.slice(1))
      expect(stageMetrics).toHaveProperty('expert_iteration/kept_total');

    const logged = readJsonl(join(out, 'episodes.jsonl')) as { phase: string; episode: Episode }[];
    const byPhase = (phase: string) => logged.filter((e) => e.phase === phase).map((e) => e.episode);
    for (const episode of byPhase('follow')) {
      expect(episode.metadata.planKind).toBe('steps');
      expect(episode.planHistory.map((revision) => revision.source)).toEqual(['oracle']);
    }
    // Stage 1 offers candidate plans where the room has another receptacle of a type the plan uses:
    // the policy's first generation picks one.
    expect(
      byPhase('follow').some((episode) => {
        const first = episode.turns[0]?.generations[0];
        return first?.kind === 'plan' && first.finishReason === 'choice';
      }),
    ).toBe(true);
    for (const phase of ['plan', 'joint']) {
      const episodes = byPhase(phase);
      expect(episodes.length).toBeGreaterThan(0);
      for (const episode of episodes) {
        expect(episode.planHistory[0]!.source).toBe('policy');
        expect(episode.planHistory.every((revision) => revision.steps.length <= 4)).toBe(true);
      }
      // Revised every turn: a plan that changed keeps the steps carried out before it.
      expect(episodes.some((episode) => episode.planHistory.length > 1)).toBe(true);
    }
  }, 300_000);
});
