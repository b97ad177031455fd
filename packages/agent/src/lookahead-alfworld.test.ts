// Look-ahead on the native ALFWorld env: copies replay the episode's commands, and where every
// branch scores the same, the env's own step checks pick the branch that carries out the plan's
// next step.
import {
  alfworldPlanOf,
  alfworldPlanSteps,
  createAlfworldEnv,
  createGeneratedTaskSource,
} from '@pilotrl/env-alfworld';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent } from './agent';
import { evaluate } from './evaluate';
import { oraclePlanProvider } from './plan-providers';
import { computeOf } from './search-compute';
import { createVectorEnv } from './vector-env';

const taskSource = createGeneratedTaskSource();

describe('lookahead search on ALFWorld', () => {
  it('takes the object the plan names when the policy forgets to, guided by the step checks', async () => {
    const [task] = await taskSource.tasks('valid_seen', { limit: 1 });
    const { actions } = await taskSource.oracle!(task!);
    const forgotten = actions.findIndex((action) => action.startsWith('take '));
    // The oracle's commands, one per turn, but "look" where it takes the object; a command that is
    // not admissible when its turn comes is "look" too.
    const agent = () =>
      createAdaPlanAgent(
        createScriptedPolicy((request, index) => {
          const command = index === forgotten ? 'look' : actions[index];
          return command !== undefined && request.choices!.includes(command) ? command : 'look';
        }),
        {
          actionSpace: 'choice',
          maxTurns: actions.length + 2,
          planSteps: alfworldPlanSteps,
          planSource: {
            kind: 'provided',
            source: 'oracle',
            provider: oraclePlanProvider(taskSource, { planOf: alfworldPlanOf }),
          },
          revision: { mode: 'never' },
        },
      );
    const env = () => ({ taskSource, vectorEnv: createVectorEnv(() => createAlfworldEnv(), { size: 1 }) });
    const alone = await evaluate(agent(), env(), 'valid_seen', { limit: 1 });
    const searched = await evaluate(agent(), env(), 'valid_seen', {
      limit: 1,
      search: { kind: 'lookahead', width: 100, depth: 1, scorer: { kind: 'rollout' } },
    });
    expect(alone.successes).toBe(0);
    expect(searched.successes).toBe(1);
    const [episode] = searched.episodeRecords;
    expect(episode!.turns[forgotten]!.action).toBe(actions[forgotten]);
    expect(episode!.metadata.search).toMatchObject({ overriddenTurns: [forgotten] });
    const turns = episode!.turns;
    expect(computeOf(episode!)!.copies).toBe(
      turns.reduce((sum, turn) => sum + Math.min(100, turn.admissibleActions.length), 0),
    );
  });
});
