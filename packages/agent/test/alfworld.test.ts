// AdaPlan and ReAct on the native ALFWorld env: generated household tasks, the oracle's plans
// and actions played through the ALFWorld prompt template, batched over a vector env.
import { createAlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent, createReActAgent } from '../src/agent';
import { evaluate } from '../src/evaluate';
import { rollout } from '../src/rollout';
import { createVectorEnv } from '../src/vector-env';
import { createExpert } from './expert-policy';

const taskSource = createGeneratedTaskSource();
// The expert counts its steps from the history, so the whole episode must stay in the prompt.
const roomy = { historyTurns: 100, contextTokens: 1_000_000 };

describe('agents on ALFWorld', () => {
  it('plays oracle plans and actions with AdaPlan (revising every turn) and ReAct', async () => {
    const tasks = await taskSource.tasks('valid_seen', { limit: 3 });
    const expert = await createExpert(taskSource, () => createAlfworldEnv(), tasks);
    const vectorEnv = createVectorEnv(() => createAlfworldEnv(), { size: 6 });
    const adaplan = await rollout(createAdaPlanAgent(expert.policy, roomy), vectorEnv, {
      envId: taskSource.envId,
      tasks,
      groupSize: 2,
    });
    for (const episode of adaplan) {
      expect(episode.won).toBe(true);
      expect(episode.metadata.promptTemplate).toBe('alfworld');
      expect(episode.planHistory[0]!.steps).toEqual(expert.solutions.get(episode.taskId)!.plan);
      expect(episode.turns.every((turn) => turn.valid && turn.formatError === null)).toBe(true);
    }
    const longest = Math.max(...adaplan.map((episode) => episode.turns.length));
    // Every turn has a plan phase (the first plan, then a revision) and an act phase.
    expect(expert.calls).toHaveLength(2 * longest);

    const report = await evaluate(
      createReActAgent(expert.policy, roomy),
      { taskSource, vectorEnv },
      'valid_seen',
      {
        limit: 3,
        samplesPerTask: 2,
      },
    );
    expect(report.successRate).toBe(1);
    expect(report.formatErrorRate).toBe(0);
    const types = new Set(tasks.map((task) => task.taskType!));
    expect(Object.keys(report.byTaskType).sort()).toEqual([...types].sort());
    expect(report.meanSteps).toBeCloseTo(
      adaplan.reduce((sum, episode) => sum + episode.turns.length, 0) / adaplan.length,
      10,
    );
  });
});
