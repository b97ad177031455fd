// A curriculum whose policy context cannot hold the first prompt: every episode ends at turn 0, every
// group has the same reward, so nothing trains. The run must say so where a user looks: a warning
// line from the stage's rollouts and from the evaluation, the progress line and the metrics record.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/curriculum-config';
import { readJsonl } from '../run/jsonl';
import { runEnvsFor } from '../run/run-envs';
import { createRunPolicy } from '../run/run-policy';
import { runCurriculum } from './curriculum';

describe('a curriculum whose first prompts do not fit the context', () => {
  it('warns from its rollouts and evaluations, and says in the progress line and metrics that nothing updated', async () => {
    const config = parseConfig({
      name: 'overflowing',
      seed: 3,
      env: { id: 'testkit/corridor', maxSteps: 4 },
      policy: { size: 'tiny', tokenizerCorpusTasks: 2, vocabSize: 300, contextLength: 48 },
      agent: { paradigm: 'react', actionSpace: 'choice', maxActionTokens: 8 },
      stages: [
        {
          kind: 'joint',
          iterations: 2,
          tasksPerIteration: 2,
          groupSize: 2,
          learningRate: 1e-3,
          rewards: { outcome: 1 },
        },
      ],
      eval: { episodes: 3, every: 10, splits: ['valid_seen'] },
      checkpoint: { every: 10, keep: 1 },
    });
    const envs = runEnvsFor(config);
    const { policy } = await createRunPolicy(config, envs);
    const runDir = mkdtempSync(join(tmpdir(), 'pilotrl-turn-zero-'));
    const logged: string[] = [];
    const progress: string[] = [];
    try {
      await runCurriculum({
        config,
        runDir,
        envs,
        policy,
        log: (line) => logged.push(line),
        progress: { write: (text) => progress.push(text) > 0 },
      });
    } finally {
      policy.dispose();
    }
    const warnings = logged.filter((line) => line.startsWith('warning:'));
    // Once per place and cause, not once per iteration.
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      /^warning: joint rollout: 4 of 4 episodes on "testkit\/corridor" ended at turn 0 with endReason 'context_overflow': the smallest first prompt takes \d+ tokens \(the opening observation alone \d+ characters\), but policy\.contextLength 48 less \d+ kept for the answer leaves \d+/,
    );
    expect(warnings[0]).toContain('raise policy.contextLength, set agent.prompt: view');
    expect(warnings[1]).toMatch(/^warning: eval: 3 of 3 episodes on "testkit\/corridor" ended at turn 0/);

    const note = 'no update: every group had zero reward variance (2 of 2 groups skipped)';
    expect(progress).toHaveLength(2);
    for (const line of progress) expect(line).toContain(`  ${note}\n`);
    const metrics = readJsonl(join(runDir, 'metrics.jsonl')) as Record<string, unknown>[];
    expect(metrics.map((record) => [record['charts/updated'], record['charts/groups'], record.note])).toEqual(
      [
        [0, 2, note],
        [0, 2, note],
      ],
    );
  }, 60_000);
});
