import { describe, expect, it } from 'vitest';
import { parseActOutput, parsePlanOutput } from './output-parser';
import {
  alfworldPromptTemplate,
  createPromptTemplate,
  defaultPromptTemplate,
  planBlock,
  promptTemplateFor,
  promptTemplateRegistry,
} from './prompt-templates';

describe('prompt templates', () => {
  it('picks the env template, else the default', () => {
    expect(promptTemplateFor('alfworld')).toBe(alfworldPromptTemplate);
    expect(promptTemplateFor('testkit/corridor')).toBe(defaultPromptTemplate);
  });

  it('accepts user templates by env id', () => {
    const mine = createPromptTemplate('my-env', { instructions: 'Sort the blocks.' });
    promptTemplateRegistry.register('my-env', mine);
    expect(promptTemplateFor('my-env').system('react')).toMatch(/^Sort the blocks\./);
  });

  it('teaches each paradigm its own answer format', () => {
    const adaplan = defaultPromptTemplate.system('adaplan');
    const react = defaultPromptTemplate.system('react');
    expect(adaplan).toContain('<global_plan>Step 1: ...');
    expect(react).not.toContain('global_plan');
    expect(react).toContain('<thought>');
    expect(alfworldPromptTemplate.system('adaplan')).toContain('take (object) from (receptacle)');
  });

  it('writes plans in the form the parser reads', () => {
    const plan = ['go to the fridge', 'take the apple'];
    expect(parsePlanOutput(planBlock(plan))).toEqual({ ok: true, steps: plan });
    const ask = defaultPromptTemplate.actRequest({ paradigm: 'adaplan', plan, fixedSteps: 1 });
    expect(ask).toContain(planBlock(plan));
    expect(ask).toContain('Steps 1 to 1 are carried out.');
    expect(parseActOutput('<thought>Step 2</thought><action>take apple 1 from fridge 1</action>').ok).toBe(
      true,
    );
  });

  it('ends a choice prompt with the plan step to carry out next, none once all are done', () => {
    const plan = ['take apple', 'put apple in fridge 1'];
    const ask = (fixedSteps: number) =>
      defaultPromptTemplate.commandRequest({ paradigm: 'adaplan', plan, fixedSteps });
    expect(ask(0)).toBe(`Your global plan:\n${planBlock(plan)}\nNext step: take apple`);
    expect(ask(1)).toMatch(/Steps 1 to 1 are carried out\.\nNext step: put apple in fridge 1$/);
    expect(ask(2)).not.toContain('Next step');
    expect(defaultPromptTemplate.commandRequest({ paradigm: 'react', plan: null, fixedSteps: 0 })).toBe('');
  });

  it('states the goal once', () => {
    const separate = defaultPromptTemplate.intro({
      task: 'Win.',
      observation: 'A room.',
      admissibleActions: [],
    });
    expect(separate).toBe('Goal: Win.\n\nObservation: A room.');
    const inside = defaultPromptTemplate.intro({
      task: 'Win.',
      observation: 'Win.\nA room.',
      admissibleActions: [],
    });
    expect(inside).toBe('Observation: Win.\nA room.');
  });

  it('shows admissible actions with the observation', () => {
    const text = defaultPromptTemplate.observation({
      observation: 'A room.',
      admissibleActions: ['look', 'go east'],
    });
    expect(text).toBe('Observation: A room.\nAdmissible actions: "look", "go east"');
  });
});
