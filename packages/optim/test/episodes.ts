// Builds small, valid core Episode records for tests: only the fields estimators read vary.
import { EPISODE_FORMAT_VERSION, type Episode, type Generation, type Turn } from '@pilotrl/core';

export interface TurnSpec {
  observation?: string;
  admissibleActions?: string[];
  /** One loss mask per generation of the turn; token ids are 1..n. */
  masks: (0 | 1)[][];
  /** Sampler logprobs per generation (defaults to -1 on model tokens). */
  logprobs?: number[][];
  /** The turn's share of the episode reward, where rewards are credited per turn. */
  reward?: number;
}

export function generation(mask: (0 | 1)[], logprobs?: number[]): Generation {
  return {
    kind: 'act',
    text: 'x',
    tokenIds: mask.map((_, t) => t + 1),
    lossMask: mask,
    logprobs: logprobs ?? mask.map((m) => (m === 1 ? -1 : 0)),
    policyVersion: 0,
    finishReason: 'stop',
  };
}

export function episode(id: string, groupId: string, reward: number | undefined, turns: TurnSpec[]): Episode {
  return {
    formatVersion: EPISODE_FORMAT_VERSION,
    id,
    envId: 'test',
    taskId: 'task',
    split: 'train',
    seed: 0,
    groupId,
    sampleIndex: 0,
    paradigm: 'react',
    task: 'test',
    initialObservation: '',
    turns: turns.map(
      (spec, index): Turn => ({
        index,
        observation: spec.observation ?? `state ${index}`,
        admissibleActions: spec.admissibleActions ?? ['a', 'b'],
        generations: spec.masks.map((mask, g) => generation(mask, spec.logprobs?.[g])),
        thought: null,
        action: 'a',
        formatError: null,
        envReward: 0,
        valid: true,
        rewards: {},
        ...(spec.reward === undefined ? {} : { reward: spec.reward }),
      }),
    ),
    planHistory: [],
    won: (reward ?? 0) > 0,
    terminated: true,
    truncated: false,
    envReturn: reward ?? 0,
    rewardComponents: {},
    ...(reward === undefined ? {} : { reward }),
    metadata: {},
  };
}
