import { createAdaPlanAgent, createVectorEnv, evaluate, type TestTimeSearch } from '@pilotrl/agent';
import { ConfigError } from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { runEnvsFor } from '../run/run-envs';
import { agentOptionsFor } from '../run/run-setup';
import { oneJointStage } from '../tiny-corridor.testing';
import { parseConfig } from './curriculum-config';
import { checkSearchFitsConfig, checkSearchFitsPolicy, parseSearchFlags, searchFor } from './search-options';

const corridor = (agent: Record<string, unknown> = {}) =>
  parseConfig({
    name: 'search-options',
    env: { id: 'testkit/corridor', maxSteps: 6 },
    agent,
    stages: [oneJointStage],
  });

describe('parseSearchFlags', () => {
  it('reads no search, best-of-n and lookahead, with their defaults', () => {
    expect(parseSearchFlags({})).toBeUndefined();
    expect(parseSearchFlags({ search: 'best-of-n' })).toEqual({ kind: 'best-of-n', n: 4, scorer: 'judge' });
    expect(parseSearchFlags({ search: 'best-of-n', n: 8, scorer: 'value' })).toEqual({
      kind: 'best-of-n',
      n: 8,
      scorer: 'value',
    });
    expect(parseSearchFlags({ search: 'lookahead', depth: 2, width: 4 })).toEqual({
      kind: 'lookahead',
      width: 4,
      depth: 2,
      scorer: 'rollout',
    });
  });

  it.each([
    [{ search: 'best-of-n', n: 0 }, /--n must be at least 1; a search budget of 0 plays nothing/],
    [{ search: 'lookahead', width: 0 }, /--width must be at least 1/],
    [{ search: 'lookahead', depth: 0 }, /--depth must be at least 1/],
    [{ search: 'best-of-n', scorer: 'rollout' }, /--scorer for best-of-n is judge or value/],
    [{ search: 'lookahead', scorer: 'judge' }, /--scorer for lookahead is value or rollout/],
    [{ search: 'best-of-n', depth: 2 }, /--depth only apply to --search lookahead/],
    [{ n: 4 }, /--n only apply to --search best-of-n or lookahead/],
  ] as const)('refuses %j with a clear error', (flags, message) => {
    expect(() => parseSearchFlags(flags)).toThrow(message);
  });
});

describe('checkSearchFitsConfig', () => {
  it('refuses a look-ahead deeper than the step limit', () => {
    const config = corridor();
    expect(() =>
      checkSearchFitsConfig({ kind: 'lookahead', width: 2, depth: 7, scorer: 'rollout' }, config),
    ).toThrow(/--depth 7 is beyond env "testkit\/corridor"'s step limit of 6/);
    expect(() =>
      checkSearchFitsConfig({ kind: 'lookahead', width: 2, depth: 6, scorer: 'rollout' }, config),
    ).not.toThrow();
  });

  it('refuses best-of-n for a react agent', () => {
    const react = corridor({ paradigm: 'react' });
    expect(() => checkSearchFitsConfig({ kind: 'best-of-n', n: 2, scorer: 'judge' }, react)).toThrow(
      ConfigError,
    );
    expect(() => checkSearchFitsConfig({ kind: 'best-of-n', n: 2, scorer: 'judge' }, react)).toThrow(
      /is played with the react paradigm, which writes none/,
    );
  });
});

describe('checkSearchFitsPolicy', () => {
  it('refuses a value scorer for a policy without a value head, naming the scorer to use instead', () => {
    const remote = createScriptedPolicy(() => 'look', { name: 'remote-model' });
    expect(() => checkSearchFitsPolicy({ kind: 'best-of-n', n: 2, scorer: 'value' }, remote)).toThrow(
      /--scorer value needs a value head, but policy "remote-model" has none.*use --scorer judge/,
    );
    expect(() =>
      checkSearchFitsPolicy({ kind: 'lookahead', width: 2, depth: 1, scorer: 'value' }, remote),
    ).toThrow(/use --scorer rollout/);
    expect(() => checkSearchFitsPolicy({ kind: 'best-of-n', n: 2, scorer: 'judge' }, remote)).not.toThrow();
  });
});

describe('searchFor', () => {
  it('ranks best-of-N plans with the reference judge against the env oracle, raising success', async () => {
    const config = corridor({ actionSpace: 'choice', prompt: 'view', planRevision: 'never' });
    const [env] = runEnvsFor(config);
    // Half the plans walk the wrong way; the executor follows whichever plan it is shown.
    const policy = createScriptedPolicy((request) => {
      const text = request.messages.at(-1)!.content;
      const goal = /go to the (\w+) room/.exec(text)![1];
      if (request.kind === 'plan') {
        const way = (request.seed ?? 0) % 2 === 0 ? 'east' : 'west';
        return `<global_plan>\nStep 1: Walk ${way} to the ${goal} room.\nStep 2: Stop there.\n</global_plan>`;
      }
      const here = [...text.matchAll(/You are in the (\w+) room/g)].at(-1)?.[1];
      const way = /Walk (east|west)/.exec(text)![1];
      return here === goal || !request.choices!.includes(`go ${way}`) ? 'stop' : `go ${way}`;
    });
    const agent = createAdaPlanAgent(policy, {
      ...agentOptionsFor(env!.config, { provider: env!.provider, temperature: 1 }),
      // The scripted policy counts bytes, far more than the tiny model's context holds.
      contextTokens: 8192,
    });
    const play = async (search?: TestTimeSearch) => {
      const vectorEnv = createVectorEnv(env!.createEnv, { size: 4 });
      const report = await evaluate(agent, { taskSource: env!.provider.tasks, vectorEnv }, 'valid_seen', {
        limit: 16,
        ...(search === undefined ? {} : { search }),
      });
      return report;
    };
    const plain = await play();
    const judged = await play(searchFor({ kind: 'best-of-n', n: 4, scorer: 'judge' }, policy, env!));
    // Measured: 11 of 16 alone, 15 of 16 with the best of four plans by the reference judge.
    expect(judged.successRate).toBeGreaterThan(plain.successRate);
    expect(judged.compute.scoredTokens).toBeGreaterThan(0);
  });
});
