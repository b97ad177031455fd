import { createRng } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/curriculum-config';
import { presets } from '../config/presets';
import { runEnvsFor } from '../run/run-envs';
import { startRun } from '../run/run-start';
import { quietIo } from '../tiny-corridor.testing';
import { curriculumPhases } from './phase-plan';
import { createStageRollouts, drawTrainingTasks } from './stage-rollout';

describe('training tasks of a stage', () => {
  // BabyAI's train split holds 3 tasks its oracle proves unsolvable in AgentGym's commands
  // (GoToImpUnlock seeds 6, 14, 35).
  const [babyai] = runEnvsFor(
    parseConfig({ ...presets['babyai-quick'], env: { id: 'babyai', maxSteps: 20 } }),
  );
  const unsolvable = ['train-276', 'train-284', 'train-305'];

  it('leaves out the tasks the oracle cannot solve when the stage follows its plans', async () => {
    const followed = await drawTrainingTasks(babyai!, createRng(1), 810, true);
    expect(followed).toHaveLength(807);
    expect(followed.filter((task) => unsolvable.includes(task.taskId))).toEqual([]);
  });

  it('plays every task when it does not', async () => {
    const drawn = await drawTrainingTasks(babyai!, createRng(1), 810, false);
    expect(drawn).toHaveLength(810);
  });
});

describe('a stage rollout on a mixture', () => {
  it('samples each env at its own agent.temperature: greedy where it says 0', async () => {
    const config = parseConfig({
      name: 'temperatures',
      env: {
        mixture: [
          { id: 'testkit/corridor', weight: 1, maxSteps: 6, agent: { temperature: 0 } },
          { id: 'testkit/key-door', weight: 1, maxSteps: 6 },
        ],
      },
      policy: { size: 'tiny', tokenizerCorpusTasks: 4, vocabSize: 340, contextLength: 384 },
      agent: {
        prompt: 'compact',
        planRevision: 'never',
        historyWindow: 1,
        maxPlanTokens: 16,
        maxActionTokens: 10,
        temperature: 1.5,
      },
      stages: [
        {
          kind: 'joint',
          iterations: 1,
          tasksPerIteration: 8,
          groupSize: 4,
          learningRate: 1e-3,
          rewards: { outcome: 1 },
        },
      ],
    });
    const { envs, policy } = await startRun(config);
    const [phase] = curriculumPhases(config);
    const rollouts = createStageRollouts(
      { config, runDir: '', envs, policy, log: () => {}, progress: quietIo.stderr },
      phase!,
    );
    try {
      const { played } = await rollouts.play(createRng(3), 1);
      const temperatures = Object.fromEntries(
        played.map(({ env, agent }) => [
          env.id,
          [agent.options.act.temperature, agent.options.plan.temperature],
        ]),
      );
      expect(temperatures).toEqual({ 'testkit/corridor': [0, 0], 'testkit/key-door': [1.5, 1.5] });
      // Greedy: the samples of one task in a group are the same episode.
      const corridor = played.find(({ env }) => env.id === 'testkit/corridor')!.episodes;
      const actions = (groupId: string) =>
        corridor
          .filter((episode) => episode.groupId === groupId)
          .map((episode) => JSON.stringify(episode.turns.map((turn) => turn.action)));
      for (const groupId of new Set(corridor.map((episode) => episode.groupId))) {
        expect(new Set(actions(groupId)).size, groupId).toBe(1);
      }
    } finally {
      await rollouts.close();
      policy.dispose();
    }
  }, 60_000);
});
