import { corridorTasks } from '@pilotrl/env-testkit';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { createChatClient, createChatCompletionsServer } from '@pilotrl/llm';
import { describe, expect, it } from 'vitest';
import { llmPlanProvider } from './llm-plans';

async function withServer(reply: string, body: (baseUrl: string) => Promise<void>) {
  const server = createChatCompletionsServer({
    policy: createScriptedPolicy(() => reply),
    modelName: 'planner',
  });
  const url = await server.listen(0, '127.0.0.1');
  try {
    await body(url);
  } finally {
    await server.close();
  }
}

describe('llmPlanProvider', () => {
  it('asks an OpenAI-compatible model for the plan and parses its steps', async () => {
    const [task] = await corridorTasks.tasks('train', { limit: 1 });
    await withServer(
      '<global_plan>Step 1: walk west to the yellow room\nStep 2: stop there</global_plan>',
      async (url) => {
        const provider = llmPlanProvider(
          createChatClient({ baseUrl: url, model: 'planner' }),
          'testkit/corridor',
        );
        const plans = await provider({
          task: task!,
          goal: 'go to the yellow room',
          initialObservation: 'You are in the red room.',
          admissibleActions: ['go west'],
        });
        expect(plans).toEqual([['walk west to the yellow room', 'stop there']]);
      },
    );
  });

  it('fails with the task id when the model writes no valid plan', async () => {
    const [task] = await corridorTasks.tasks('train', { limit: 1 });
    await withServer('I would go west.', async (url) => {
      const provider = llmPlanProvider(
        createChatClient({ baseUrl: url, model: 'planner' }),
        'testkit/corridor',
      );
      await expect(
        provider({ task: task!, goal: 'g', initialObservation: 'o', admissibleActions: [] }),
      ).rejects.toThrow(`wrote no valid plan for task ${task!.taskId}`);
    });
  });
});
