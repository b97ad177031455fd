import type { Episode } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { createProgressReward } from '../bench/rl-vs-sft/progress-reward';
import { episode } from './episodes';

/** A lost episode of `task` that played `actions` (each accepted unless listed in `refused`). */
function played(task: string, actions: string[], refused: string[] = []): Episode {
  const base = episode('e', 'g', 0, [{ masks: [[1]] }]);
  return {
    ...base,
    task,
    turns: actions.map((action, index) => ({
      ...base.turns[0]!,
      index,
      action,
      valid: !refused.includes(action),
    })),
  };
}

const progress = (e: Episode) => createProgressReward().compute(e) as { progress: number };

describe('progress reward', () => {
  it('counts the milestones reached in order: take, transform, put', () => {
    const task = 'heat some egg and put it in diningtable';
    expect(progress(played(task, ['go to countertop 1', 'take bread 1 from countertop 1']))).toEqual({
      progress: 0,
    });
    expect(progress(played(task, ['take egg 1 from countertop 1', 'go to microwave 1']))).toEqual({
      progress: 1 / 3,
    });
    // Putting before heating reaches nothing more: the milestones are ordered.
    expect(
      progress(played(task, ['take egg 1 from countertop 1', 'put egg 1 in/on diningtable 1'])).progress,
    ).toBe(1 / 3);
    expect(
      progress(
        played(task, [
          'take egg 1 from countertop 1',
          'heat egg 1 with microwave 1',
          'put egg 1 in/on drawer 1',
        ]),
      ).progress,
    ).toBe(2 / 3);
  });

  it('ignores refused commands and needs two distinct objects for a two-object task', () => {
    const task = 'find two tomato and put them in countertop';
    expect(
      progress(played(task, ['take tomato 1 from fridge 1'], ['take tomato 1 from fridge 1'])).progress,
    ).toBe(0);
    const sameTwice = [
      'take tomato 1 from fridge 1',
      'put tomato 1 in/on countertop 1',
      'take tomato 1 from countertop 1',
      'put tomato 1 in/on countertop 1',
    ];
    expect(progress(played(task, sameTwice)).progress).toBe(3 / 4);
  });

  it('credits the lamp only while holding the object, and a win fully', () => {
    const task = 'examine the box with the desklamp';
    const wrongObject = ['take laptop 1 from sofa 1', 'use desklamp 1'];
    expect(progress(played(task, wrongObject)).progress).toBe(0);
    const putDown = ['take box 1 from sofa 1', 'put box 1 in/on sofa 1', 'use desklamp 1'];
    expect(progress(played(task, putDown)).progress).toBe(1 / 2);
    expect(progress({ ...played(task, []), won: true })).toEqual({ progress: 1 });
  });
});
