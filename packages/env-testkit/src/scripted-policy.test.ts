import { generateResultSchema } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { createScriptedPolicy } from './test';

const ask = (content: string, extra = {}) => ({ messages: [{ role: 'user' as const, content }], ...extra });

describe('createScriptedPolicy', () => {
  it('replies in script order with byte tokens that decode to the text', async () => {
    const policy = createScriptedPolicy(['Action: go east', 'Action: stop'], { version: 3 });
    const results = await policy.generate([ask('first'), ask('second')]);
    expect(results.map((r) => r.text)).toEqual(['Action: go east', 'Action: stop']);
    for (const result of results) {
      expect(generateResultSchema.parse(result)).toEqual(result);
      expect(new TextDecoder().decode(Uint8Array.from(result.tokenIds))).toBe(result.text);
      expect(result.policyVersion).toBe(3);
    }
    expect(policy.countTokens?.('é')).toBe(2);
    await expect(policy.generate([ask('third')])).rejects.toThrow(
      /request 3 arrived but the script has only 2/,
    );
  });

  it('answers from a function of the request and records what it was asked', async () => {
    const policy = createScriptedPolicy((request, index) => `${index}:${request.messages.at(-1)?.content}`);
    const [result] = await policy.generate([ask('hello', { temperature: 0 })]);
    expect(result?.text).toBe('0:hello');
    expect(policy.requests[0]).toMatchObject({ temperature: 0, maxTokens: 256 });
  });

  it('honours stop strings, maxTokens and choices', async () => {
    const policy = createScriptedPolicy(['Thought: east.\nAction: go east\nObservation', 'héllo', 'stop']);
    const [stopped, cut, chosen] = await policy.generate([
      ask('a', { stop: ['\nObservation', 'Action:'] }),
      ask('b', { maxTokens: 2 }),
      ask('c', { choices: ['go east', 'stop'] }),
    ]);
    expect(stopped).toMatchObject({ text: 'Thought: east.\nAction:', finishReason: 'stop' });
    expect(cut).toMatchObject({ tokenIds: [104, 195], finishReason: 'length' });
    expect(chosen).toMatchObject({ text: 'stop', finishReason: 'choice', choiceIndex: 1 });
    expect(chosen?.choiceLogprobs?.[1]).toBe(0);
    expect(chosen?.choiceLogprobs?.[0]).toBeLessThan(-700);
  });

  it('fails loudly when a scripted reply is not among the choices, or tokens are off', async () => {
    const policy = createScriptedPolicy(['jump'], { tokens: 'none' });
    await expect(policy.generate([ask('x', { choices: ['go east', 'stop'] })])).rejects.toThrow(
      /"jump" to request 1 is not one of its choices \("go east", "stop"\)/,
    );
    const silent = createScriptedPolicy(['go east'], { tokens: 'none' });
    const [result] = await silent.generate([ask('x')]);
    expect(result).toMatchObject({ text: 'go east', tokenIds: [], logprobs: [], promptTokenIds: [] });
    expect(() => createScriptedPolicy([], { tokens: 'words' } as never)).toThrow(/tokens/);
  });
});
