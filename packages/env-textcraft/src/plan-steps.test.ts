import { describe, expect, it } from 'vitest';
import { createTextcraftEnv, textcraftClientAction, textcraftPlanSteps, textcraftTasks } from './index';

describe('textcraft plan steps', () => {
  it('gives the oracle plan in the vocabulary of the opening, and the oracle carries out every step', async () => {
    const env = createTextcraftEnv({ maxSteps: 100 });
    for (const split of textcraftTasks.splits()) {
      for (const task of await textcraftTasks.tasks(split, { limit: 20 })) {
        const first = await env.reset(task);
        const vocabulary = new Set(
          textcraftPlanSteps.steps({ goal: task.description!, observations: [first.observation] }),
        );
        const { actions, plan } = await textcraftTasks.oracle(task);
        expect(
          plan.filter((step) => !vocabulary.has(step)),
          task.taskId,
        ).toEqual([]);
        expect(textcraftPlanSteps.planOf!(actions)).toEqual(plan);
        let executed = 0;
        for (const action of actions) {
          const { observation } = await env.step(action);
          if (executed < plan.length && textcraftPlanSteps.executes(plan[executed]!, action, observation))
            executed++;
        }
        expect(executed, task.taskId).toBe(plan.length);
      }
    }
  });

  it('counts no step for a refused command', () => {
    expect(textcraftPlanSteps.executes('get cedar lumber', 'get 1 cedar lumber', 'Got 1 cedar lumber')).toBe(
      true,
    );
    expect(textcraftPlanSteps.executes('get peg', 'get 1 peg', 'Could not find peg')).toBe(false);
    expect(
      textcraftPlanSteps.executes(
        'craft peg',
        'craft 4 peg using 2 cedar board',
        'Instruction:\nCrafted 4 minecraft:peg',
      ),
    ).toBe(true);
  });
});

describe('textcraft client parsing', () => {
  it('cleans a reply as the 2024 client, and refuses two actions as the 2025 one', () => {
    expect(textcraftClientAction('Thought:\nI need sticks.\n\nAction:\nget 2 oak planks.')).toEqual({
      action: 'get 2 oak planks',
    });
    expect(textcraftClientAction('Thought: no action here!')).toEqual({ action: 'Thought no action here' });
    expect(textcraftClientAction('Action: inventory\nAction: get 1 stick', '2025')).toEqual({
      refused: "Error: Only one 'Action' is allowed per response. Please adjust your response.",
    });
    expect(textcraftClientAction('Thought:\nx\n\nAction:\ncraft 4 stick using 2 planks\n', '2025')).toEqual({
      action: 'craft 4 stick using 2 planks',
    });
  });
});
