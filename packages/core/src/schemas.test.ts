import { describe, expect, it } from 'vitest';
import { datumSchema, episodeSchema, generateRequestSchema, stepResultSchema } from './index';

describe('contract schemas', () => {
  it('accept a step result with env-specific info keys', () => {
    const parsed = stepResultSchema.parse({
      observation: 'You arrive at cabinet 1.',
      admissibleActions: ['look'],
      reward: 0,
      terminated: false,
      truncated: false,
      info: { won: false, valid: true, location: 'cabinet 1' },
    });
    expect(parsed.info.location).toBe('cabinet 1');
    expect(() => stepResultSchema.parse({ ...parsed, reward: Number.NaN })).toThrow();
  });

  it('fill generation defaults', () => {
    const request = generateRequestSchema.parse({ messages: [{ role: 'user', content: 'hi' }] });
    expect(request).toMatchObject({ maxTokens: 256, temperature: 1, topP: 1, stop: [] });
  });

  it('reject datums whose per-token arrays are misaligned or train on the first token', () => {
    expect(datumSchema.safeParse({ tokenIds: [1, 2, 3], weights: [0, 1, 1] }).success).toBe(true);
    const misaligned = datumSchema.safeParse({ tokenIds: [1, 2, 3], weights: [0, 1] });
    expect(misaligned.error?.issues[0]?.message).toMatch(/has 2 entries but tokenIds has 3/);
    expect(datumSchema.safeParse({ tokenIds: [1, 2], weights: [1, 1] }).success).toBe(false);
  });

  it('reject allowed token sets that are misaligned or leave out the token itself', () => {
    const base = { tokenIds: [1, 2, 3], weights: [0, 1, 1] };
    expect(datumSchema.safeParse({ ...base, allowedTokenIds: [null, [2, 5], [3]] }).success).toBe(true);
    const short = datumSchema.safeParse({ ...base, allowedTokenIds: [null, [2]] });
    expect(short.error?.issues[0]?.message).toMatch(/has 2 entries but tokenIds has 3/);
    const missing = datumSchema.safeParse({ ...base, allowedTokenIds: [null, [4, 5], null] });
    expect(missing.error?.issues[0]?.message).toMatch(/token 2 is not among its allowed ids/);
  });

  it('reject an episode whose generation arrays differ in length', () => {
    const episode = {
      formatVersion: 1,
      id: 'e1',
      envId: 'corridor',
      taskId: 't1',
      split: 'train',
      seed: 0,
      groupId: 'g1',
      sampleIndex: 0,
      paradigm: 'react',
      task: 'reach the end',
      initialObservation: 'You are at cell 0.',
      turns: [
        {
          index: 0,
          observation: 'You are at cell 0.',
          admissibleActions: ['go east'],
          generations: [
            {
              kind: 'act',
              text: 'go east',
              tokenIds: [1, 2],
              lossMask: [0, 1],
              logprobs: [0, -0.1],
              policyVersion: 0,
              finishReason: 'stop',
            },
          ],
          thought: null,
          action: 'go east',
          formatError: null,
          envReward: 1,
          valid: true,
          rewards: {},
        },
      ],
      planHistory: [],
      won: true,
      terminated: true,
      truncated: false,
      envReturn: 1,
      rewardComponents: { outcome: 1 },
      metadata: {},
    };
    expect(episodeSchema.safeParse(episode).success).toBe(true);
    episode.turns[0]!.generations[0]!.lossMask = [1];
    expect(episodeSchema.safeParse(episode).success).toBe(false);
  });
});
