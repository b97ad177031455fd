import {
  episodeSchema,
  type GenerateRequest,
  generateResultSchema,
  InvalidArgumentError,
} from '@pilotrl/core';
import { corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { createReActAgent } from './agent';
import { createRandomPolicy, END_TOKEN_ID } from './random-policy';
import { rollout } from './rollout';
import { createVectorEnv } from './vector-env';

const ask = (extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [{ role: 'user', content: 'Where next?' }],
  ...extra,
});
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe('createRandomPolicy', () => {
  it('picks each admissible choice about equally often, with exact logprobs', async () => {
    const choices = ['go north', 'go south', 'go east', 'look'];
    const policy = createRandomPolicy({ seed: 3 });
    const results = await policy.generate(Array.from({ length: 4000 }, (_, seed) => ask({ choices, seed })));
    const counts = choices.map((choice) => results.filter((result) => result.text === choice).length);
    for (const count of counts) expect(Math.abs(count - 1000)).toBeLessThan(100);
    for (const result of results) {
      expect(generateResultSchema.parse(result)).toEqual(result);
      expect(result).toMatchObject({ finishReason: 'choice', choiceIndex: choices.indexOf(result.text) });
      expect(result.choiceLogprobs).toEqual(choices.map(() => -Math.log(4)));
      expect(sum(result.logprobs)).toBeCloseTo(-Math.log(4), 12);
      expect(result.tokenIds).toEqual([...Buffer.from(result.text), END_TOKEN_ID]);
      expect(result.allowedTokenIds).toHaveLength(result.tokenIds.length);
    }
  });

  it('counts a repeated choice once and tells a choice from a longer one that starts with it', async () => {
    const choices = ['go', 'go east', 'go'];
    const policy = createRandomPolicy({ seed: 1 });
    const results = await policy.generate(Array.from({ length: 400 }, (_, seed) => ask({ choices, seed })));
    const short = results.filter((result) => result.text === 'go');
    expect(short.length).toBeGreaterThan(150);
    expect(short.length).toBeLessThan(250);
    for (const result of short) {
      expect(result.choiceIndex).toBe(0);
      expect(result.choiceLogprobs).toEqual([-Math.log(2), -Math.log(2), -Math.log(2)]);
      // "g" and "o" are shared: certain; the end token, not " ", picks "go": one chance in two.
      expect(result.logprobs).toEqual([0, 0, -Math.log(2)]);
      expect(result.allowedTokenIds).toEqual([[103], [111], [32, END_TOKEN_ID]]);
    }
    const long = results.find((result) => result.text === 'go east');
    expect(long?.choiceIndex).toBe(1);
    expect(sum(long!.logprobs)).toBeCloseTo(-Math.log(2), 12);
  });

  it('answers a seeded request the same whatever its batch, and another policy seed answers differently', async () => {
    const choices = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const requests = Array.from({ length: 20 }, (_, seed) => ask({ choices, seed }));
    const texts = async (seed: number, batch: GenerateRequest[]) =>
      (await createRandomPolicy({ seed }).generate(batch)).map((result) => result.text);
    const alone = await Promise.all(requests.map(async (request) => (await texts(5, [request]))[0]));
    expect(await texts(5, requests)).toEqual(alone);
    expect(await texts(5, [...requests].reverse())).toEqual([...alone].reverse());
    expect(await texts(6, requests)).not.toEqual(alone);
  });

  it('draws requests without a seed from its own stream, which repeats for the same policy seed', async () => {
    const choices = ['left', 'right', 'up', 'down'];
    const batch = Array.from({ length: 12 }, () => ask({ choices }));
    const first = createRandomPolicy({ seed: 9 });
    const firstCall = (await first.generate(batch)).map((result) => result.text);
    const secondCall = (await first.generate(batch)).map((result) => result.text);
    expect(secondCall).not.toEqual(firstCall);
    const again = createRandomPolicy({ seed: 9 });
    expect((await again.generate(batch)).map((result) => result.text)).toEqual(firstCall);
  });

  it('writes printable text without choices, ending at the end token, a stop string or maxTokens', async () => {
    const policy = createRandomPolicy({ seed: 2 });
    const free = await policy.generate(
      Array.from({ length: 200 }, (_, seed) => ask({ seed, maxTokens: 512 })),
    );
    for (const result of free) {
      expect(generateResultSchema.parse(result)).toEqual(result);
      expect(result.text).toMatch(/^[ -~]*$/);
      expect(result.logprobs).toEqual(result.tokenIds.map(() => -Math.log(96)));
    }
    const ended = free.filter((result) => result.tokenIds.at(-1) === END_TOKEN_ID);
    expect(ended.length).toBeGreaterThan(190); // 512 draws without the end: (95/96)^512, under 1%
    for (const result of ended) {
      expect(result.finishReason).toBe('stop');
      expect(Buffer.from(result.tokenIds.slice(0, -1)).toString('latin1')).toBe(result.text);
    }
    // About one draw in 96 ends the answer, so answers run to about 95 characters on average.
    const meanLength = sum(ended.map((result) => result.text.length)) / ended.length;
    expect(meanLength).toBeGreaterThan(75);
    expect(meanLength).toBeLessThan(115);

    const [cut] = await policy.generate([ask({ seed: 4, maxTokens: 3 })]);
    expect(cut).toMatchObject({ finishReason: 'length' });
    expect(cut?.tokenIds).toHaveLength(3);

    const stopped = await policy.generate(
      Array.from({ length: 100 }, (_, seed) => ask({ seed, stop: ['e'] })),
    );
    const atStop = stopped.filter((result) => result.text.includes('e'));
    expect(atStop.length).toBeGreaterThan(30);
    for (const result of atStop) {
      expect(result.text.indexOf('e')).toBe(result.text.length - 1);
      expect(result).toMatchObject({ finishReason: 'stop' });
      expect(result.tokenIds.at(-1)).toBe('e'.charCodeAt(0));
    }
  });

  it('gives the same answers without token ids or per-token logprobs with tokens: none', async () => {
    const requests = [ask({ choices: ['left', 'right', 'left'], seed: 1 }), ask({ seed: 2 })];
    const [choice, free] = await createRandomPolicy({ seed: 3, tokens: 'none' }).generate(requests);
    const [choiceInBytes, freeInBytes] = await createRandomPolicy({ seed: 3 }).generate(requests);
    expect(choice).toEqual({
      text: choiceInBytes?.text,
      finishReason: 'choice',
      choiceIndex: choiceInBytes?.choiceIndex,
      choiceLogprobs: [-Math.log(2), -Math.log(2), -Math.log(2)],
      tokenIds: [],
      logprobs: [],
      promptTokenIds: [],
      policyVersion: 0,
    });
    expect(free).toMatchObject({ text: freeInBytes?.text, tokenIds: [], logprobs: [], promptTokenIds: [] });
    expect(createRandomPolicy({ tokens: 'none' }).countTokens).toBeUndefined();
  });

  it('tokenizes prompts as UTF-8 bytes and rejects options it does not know', async () => {
    const policy = createRandomPolicy({ name: 'baseline', version: 2 });
    expect(policy).toMatchObject({ name: 'baseline', version: 2 });
    expect(policy.countTokens?.('café')).toBe(5);
    const [result] = await policy.generate([{ messages: [{ role: 'user', content: 'é' }], choices: ['x'] }]);
    expect(result?.promptTokenIds).toEqual([...Buffer.from('user: é\n')]);
    expect(result?.policyVersion).toBe(2);
    expect(() => createRandomPolicy({ sed: 1 } as never)).toThrow(InvalidArgumentError);
    expect(() => createRandomPolicy({ seed: -1 })).toThrow(/seed/);
  });

  it('plays whole episodes through a rollout, the same episodes for the same seeds', async () => {
    const tasks = await corridorTasks.tasks('valid_seen', { limit: 6 });
    const play = async (policySeed: number) => {
      const agent = createReActAgent(createRandomPolicy({ seed: policySeed }), {
        actionSpace: 'choice',
        maxTurns: 12,
      });
      const vectorEnv = createVectorEnv(createCorridorEnv, { size: 12 });
      return rollout(agent, vectorEnv, { envId: corridorTasks.envId, tasks, groupSize: 2, seed: 1 });
    };
    const episodes = await play(0);
    for (const episode of episodes) episodeSchema.parse(episode);
    expect(episodes.flatMap((episode) => episode.turns).every((turn) => turn.formatError === null)).toBe(
      true,
    );
    const actions = (played: typeof episodes) =>
      played.map((episode) => episode.turns.map((turn) => turn.action));
    expect(actions(await play(0))).toEqual(actions(episodes));
    expect(actions(await play(1))).not.toEqual(actions(episodes));
    // Random walks: several distinct commands, and some episodes won, some lost.
    expect(new Set(actions(episodes).flat()).size).toBeGreaterThan(2);
    expect(new Set(episodes.map((episode) => episode.won)).size).toBe(2);
  });
});
