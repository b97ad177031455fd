import { describe, expect, it } from 'vitest';
import { PLAN_END, StepPlanDraft, stepTrie } from './step-trie';

const vocabulary = [
  'go to cabinet 1',
  'go to cabinet 10',
  'go to fridge 1',
  'take apple from cabinet 1',
  'take apple from fridge 1',
];

describe('plans written through a step trie', () => {
  it('merges single-child chains, so each choice is a whole stretch of words', () => {
    const root = stepTrie(vocabulary);
    expect([...root.edges.keys()]).toEqual(['go to ', 'take apple from ']);
    const goTo = root.edges.get('go to ')!;
    expect([...goTo.edges.keys()]).toEqual(['cabinet ', 'fridge 1\n']);
    expect([...goTo.edges.get('cabinet ')!.edges.keys()]).toEqual(['1\n', '10\n']);
  });

  it('writes only vocabulary steps, ends when asked after a step of its own, and stops at the step limit', () => {
    const draft = new StepPlanDraft(stepTrie(vocabulary), [], 2);
    expect(draft.choices()).toEqual(['go to ', 'take apple from ']);
    expect(draft.text()).toBe('Step 1: ');
    draft.choose('take apple from ');
    expect(draft.choices()).toEqual(['cabinet 1\n', 'fridge 1\n']);
    expect(draft.text()).toBe('Step 1: take apple from ');
    draft.choose('fridge 1\n');
    expect(draft.steps).toEqual(['take apple from fridge 1']);
    expect(draft.choices()).toContain(PLAN_END);
    draft.choose('go to ');
    draft.choose('cabinet ');
    draft.choose('10\n');
    expect(draft.steps).toEqual(['take apple from fridge 1', 'go to cabinet 10']);
    expect(draft.done).toBe(true);
    expect(draft.choices()).toEqual([]);
    expect(() => draft.choose('go to ')).toThrow(/not a choice/);
  });

  it('keeps fixed steps and asks for at least one new step', () => {
    const draft = new StepPlanDraft(stepTrie(vocabulary), ['go to fridge 1'], 5);
    expect(draft.text()).toBe('Step 1: go to fridge 1\nStep 2: ');
    expect(draft.choices()).not.toContain(PLAN_END);
    draft.choose('go to ');
    draft.choose('fridge 1\n');
    draft.choose(PLAN_END);
    expect(draft.done).toBe(true);
    expect(draft.steps).toEqual(['go to fridge 1', 'go to fridge 1']);
  });

  it('has nothing to offer with an empty vocabulary', () => {
    const draft = new StepPlanDraft(stepTrie([]), [], 5);
    expect(draft.done).toBe(true);
    expect(draft.steps).toEqual([]);
  });
});
