import { EPISODE_OVER_OBSERVATION, NotFoundError } from '@pilotrl/core';
import { checkEnv } from '@pilotrl/env-testkit/vitest';
import { describe, expect, it } from 'vitest';
import {
  createWordleEnv,
  createWordleTasks,
  WORDLE_FIRST_OBSERVATION_TEMPLATE,
  WORDLE_SERVER_OPENING,
  wordleTasks,
} from './index';

checkEnv(() => createWordleEnv(), {
  stepLimit: { maxSteps: 3, create: () => createWordleEnv({ maxSteps: 3 }) },
  taskSource: wordleTasks,
});

checkEnv(() => createWordleEnv({ vocabulary: 'wordle_official_400', secret: 'fixed' }), {
  name: 'wordle (wordle_official_400, fixed hidden word)',
  resets: [{ seed: 0 }, { seed: 7, taskId: 'valid_unseen-4' }],
  stepLimit: {
    maxSteps: 3,
    create: () => createWordleEnv({ vocabulary: 'wordle_official_400', secret: 'fixed', maxSteps: 3 }),
  },
  taskSource: createWordleTasks({ vocabulary: 'wordle_official_400', secret: 'fixed' }),
});

describe('wordle', () => {
  it('opens with the AgentGym client prompt listing the vocabulary, or the server line', async () => {
    const client = await createWordleEnv().reset({ seed: 0 });
    expect(client.observation).toBe(
      WORDLE_FIRST_OBSERVATION_TEMPLATE.replace(
        '{{vocab}}',
        client.admissibleActions.map((a) => a.replaceAll(' ', '')).join('\n'),
      ),
    );
    expect(client.observation).toContain('```\npanic\nsolar\nshire\n');
    expect(client.admissibleActions).toHaveLength(40);
    expect(client.admissibleActions[0]).toBe('p a n i c');
    const server = await createWordleEnv({ opening: 'server' }).reset({ seed: 0 });
    expect(server.observation).toBe(WORDLE_SERVER_OPENING);
  });

  it('reads a guess spaced or not, and answers feedback letters with a newline', async () => {
    const env = createWordleEnv();
    await env.reset({ seed: 0 });
    const spaced = await env.step('p a n i c');
    await env.reset({ seed: 0 });
    const plain = await env.step('  panic\n');
    expect(spaced.observation).toBe('b y b b b\n');
    expect(plain).toEqual(spaced);
    expect(spaced).toMatchObject({ reward: 0, terminated: false, info: { valid: true, attempts: 1 } });
  });

  it('answers "invalid word" to a wrong length, a word outside the vocabulary, upper case and unknown commands, each using an attempt', async () => {
    const env = createWordleEnv();
    await env.reset({ seed: 3 });
    const bad = ['p a n i', 'panics', 'zzzzz', 'PANIC', 'xyzzy plugh', 'look'];
    for (const [i, action] of bad.entries()) {
      const result = await env.step(action);
      expect(result.observation).toBe('invalid word');
      expect(result).toMatchObject({ reward: 0, info: { valid: false, won: false, attempts: i + 1 } });
      expect(result.terminated).toBe(i === bad.length - 1);
    }
    const after = await env.step('p a n i c');
    expect(after).toMatchObject({ observation: EPISODE_OVER_OBSERVATION, reward: 0, terminated: true });
    expect(after.info.valid).toBe(false);
  });

  it('gives reward 1 and ends when the word is solved, by the oracle on seed 0', async () => {
    const env = createWordleEnv();
    const [task] = await wordleTasks.tasks('train', { limit: 1 });
    let result = await env.reset(task!);
    const { actions } = await wordleTasks.oracle(task!);
    for (const action of actions) result = await env.step(action);
    expect(result).toMatchObject({
      observation: 'g g g g g\n',
      reward: 1,
      terminated: true,
      info: { won: true },
    });
    expect(result.admissibleActions).toEqual([]);
  });

  it('refuses task ids outside the splits with a NotFoundError that names the ids', async () => {
    const env = createWordleEnv();
    for (const taskId of ['valid_seen-200', 'valid_unseen-999', 'test-1', 'train--1', 'train-01']) {
      const error = await env.reset({ seed: 0, taskId }).catch((e: unknown) => e);
      expect(NotFoundError.isInstance(error), taskId).toBe(true);
      expect((error as Error).message).toContain('<split>-<index>');
    }
    await expect(wordleTasks.tasks('test')).rejects.toThrow(/unknown split "test"/);
  });

  it('keeps the hidden words of valid_unseen out of train and valid_seen (fixed hidden word)', async () => {
    const tasks = createWordleTasks({ vocabulary: 'wordle_official_400', secret: 'fixed' });
    const targets = async (split: string, limit: number) => {
      const words = new Set<string>();
      for (const task of await tasks.tasks(split, { limit })) {
        const { actions } = await tasks.oracle(task);
        words.add(actions.at(-1)!.replaceAll(' ', ''));
      }
      return words;
    };
    const unseen = await targets('valid_unseen', 60);
    const seen = new Set([...(await targets('train', 150)), ...(await targets('valid_seen', 60))]);
    expect([...unseen].filter((word) => seen.has(word))).toEqual([]);
    expect(unseen.size).toBeGreaterThan(30);
  });
});
