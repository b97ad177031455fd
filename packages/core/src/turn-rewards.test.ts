import { describe, expect, it } from 'vitest';
import {
  canCheckSteps,
  type Episode,
  episodeSchema,
  InvalidArgumentError,
  requireStepChecks,
  type TextEnv,
  type Turn,
  turnRewards,
  turnStateKey,
} from './index';

const turn = (index: number, reward?: number): Turn => ({
  index,
  observation: `room ${index}`,
  admissibleActions: ['look', 'go north'],
  generations: [],
  thought: null,
  action: 'look',
  formatError: null,
  envReward: 0,
  valid: true,
  rewards: {},
  ...(reward === undefined ? {} : { reward }),
});

const episode = (turns: Turn[], reward: number | undefined): Episode => ({
  formatVersion: 1,
  id: 'e1',
  envId: 'toy',
  taskId: 't1',
  split: 'train',
  seed: 0,
  groupId: 'g',
  sampleIndex: 0,
  paradigm: 'adaplan',
  task: 'win',
  initialObservation: 'room 0',
  turns,
  planHistory: [],
  won: true,
  terminated: true,
  truncated: false,
  envReturn: 1,
  rewardComponents: {},
  ...(reward === undefined ? {} : { reward }),
  stepChecks: { passed: [{ step: 'look', position: 0, turn: 1 }], planSteps: 2 },
  metadata: {},
});

describe('turn rewards', () => {
  it('are the shares of the episode reward each turn carries, or undefined when none is credited', () => {
    const credited = episode([turn(0, 0.2), turn(1, -0.1), turn(2, 1.2)], 1.3);
    expect(episodeSchema.safeParse(credited).success).toBe(true);
    expect(turnRewards(credited)).toEqual([0.2, -0.1, 1.2]);
    expect(turnRewards(episode([turn(0), turn(1)], 1))).toBeUndefined();
  });

  it('refuse a table that leaves turns out or does not sum to the reward', () => {
    expect(() => turnRewards(episode([turn(0, 0.2), turn(1)], 0.2))).toThrow(/1 of its 2 turns/);
    expect(() => turnRewards(episode([turn(0, 0.2), turn(1, 1)], 1))).toThrow(/summing to 1.2 but reward 1/);
    expect(() => turnRewards(episode([turn(0, 1)], undefined))).toThrow(InvalidArgumentError);
  });

  it('a non-finite share is not a valid episode', () => {
    expect(episodeSchema.safeParse(episode([turn(0, Number.NaN)], 1)).success).toBe(false);
  });
});

describe('turnStateKey', () => {
  it('ignores case, spacing and the order of the commands, and tells other states apart', () => {
    const a = { observation: 'You are in  the Hall.', admissibleActions: ['look', 'go north'] };
    const b = { observation: 'you are in the hall. ', admissibleActions: ['Go  North', 'look'] };
    expect(turnStateKey(a)).toBe(turnStateKey(b));
    expect(turnStateKey(a)).not.toBe(turnStateKey({ ...a, admissibleActions: ['look'] }));
    expect(turnStateKey(a)).not.toBe(turnStateKey({ ...a, observation: 'You are in the kitchen.' }));
  });
});

describe('step checks', () => {
  const plain: TextEnv = {
    envId: 'plain',
    reset: async () => {
      throw new Error('not played');
    },
    step: async () => {
      throw new Error('not played');
    },
  };

  it('are offered by envs with checkStep and cannotCheckStep; others are named in the error', () => {
    expect(canCheckSteps(plain)).toBe(false);
    expect(() => requireStepChecks(plain, 'the step_pass reward')).toThrow(
      /env "plain" cannot check plan steps.*step_pass/,
    );
    const checking = {
      ...plain,
      cannotCheckStep: () => undefined,
      checkStep: () => ({ passed: () => true }),
    };
    expect(canCheckSteps(checking)).toBe(true);
    expect(requireStepChecks(checking, 'x').checkStep('look').passed()).toBe(true);
  });
});
