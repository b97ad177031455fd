import { describe, expect, it } from 'vitest';
import { compactPromptTemplate } from './compact-template';

describe('compact prompt template', () => {
  const input = {
    task: 'put a mug in fridge.',
    observation: 'You see a mug 1.',
    admissibleActions: ['take mug 1', 'look'],
  };

  it('keeps goal, observation, actions and plan, with the answer tags of the paradigm', () => {
    const template = compactPromptTemplate({ listActions: true });
    expect(template.intro(input)).toBe(
      'Goal: put a mug in fridge.\nYou see a mug 1.\nActions: take mug 1 | look',
    );
    expect(template.system('adaplan')).toContain('<global_plan>');
    expect(template.system('react')).not.toContain('<global_plan>');
    expect(
      template.actRequest({ paradigm: 'adaplan', plan: ['find a mug', 'put it in fridge'], fixedSteps: 1 }),
    ).toBe('Plan (steps 1-1 done):\nStep 1: find a mug\nStep 2: put it in fridge\nAct:');
  });

  it('does not repeat a goal the observation already states, and can leave the actions out', () => {
    const template = compactPromptTemplate({ listActions: false });
    expect(template.intro({ ...input, observation: 'Your task is to: put a mug in fridge.' })).toBe(
      'Your task is to: put a mug in fridge.',
    );
    expect(template.observation(input)).toBe('You see a mug 1.');
  });
});
