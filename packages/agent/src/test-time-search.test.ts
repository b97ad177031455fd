import { ConfigError } from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent, createReActAgent } from './agent';
import { fixedPlanProvider } from './plan-providers';
import { type PlanScorer, valuePlanScorer } from './plan-scorers';
import { resolveSearch } from './test-time-search';
import { valueModelOf } from './value-model';

const policy = createScriptedPolicy(() => 'look');
const adaplan = createAdaPlanAgent(policy, { maxTurns: 10 });
const noScores: PlanScorer = {
  kind: 'judge',
  score: async (c) => ({ scores: c.map(() => 0), scoredTokens: c.map(() => 0) }),
};

describe('resolveSearch', () => {
  it.each([
    [{ kind: 'best-of-n', n: 0, scorer: noScores }, /n must be at least 1; a search budget of 0/],
    [{ kind: 'lookahead', width: 0, depth: 1, scorer: { kind: 'rollout' } }, /width must be at least 1/],
    [{ kind: 'lookahead', width: 2, depth: 0, scorer: { kind: 'rollout' } }, /depth must be at least 1/],
    [
      { kind: 'lookahead', width: 2, depth: 1.5, scorer: { kind: 'rollout' } },
      /depth must be a whole number/,
    ],
  ] as const)('refuses a search budget of nothing: %j', (search, message) => {
    expect(() => resolveSearch(search as never, adaplan)).toThrow(message);
  });

  it('refuses a depth beyond the step limit, naming both', () => {
    expect(() =>
      resolveSearch({ kind: 'lookahead', width: 2, depth: 11, scorer: { kind: 'rollout' } }, adaplan),
    ).toThrow(/depth 11 is beyond the agent's step limit of 10 turns/);
    expect(
      resolveSearch({ kind: 'lookahead', width: 2, depth: 10, scorer: { kind: 'rollout' } }, adaplan).kind,
    ).toBe('lookahead');
  });

  it('refuses best-of-n where the policy writes no plans', () => {
    expect(() =>
      resolveSearch({ kind: 'best-of-n', n: 4, scorer: noScores }, createReActAgent(policy)),
    ).toThrow(ConfigError);
    const given = createAdaPlanAgent(policy, {
      planSource: { kind: 'provided', source: 'external', provider: fixedPlanProvider({ t: [['go']] }) },
    });
    expect(() => resolveSearch({ kind: 'best-of-n', n: 4, scorer: noScores }, given)).toThrow(
      /given its plans/,
    );
  });

  it('refuses a value scorer that is not a value model', () => {
    expect(() =>
      resolveSearch(
        { kind: 'lookahead', width: 2, depth: 1, scorer: { kind: 'value', model: 'critic' as never } },
        adaplan,
      ),
    ).toThrow(/needs a ValueModel/);
    expect(() =>
      resolveSearch(
        {
          kind: 'best-of-n',
          n: 2,
          scorer: valuePlanScorer(valueModelOf({ name: 'p', forward: async () => [], encode: () => [] })),
        },
        adaplan,
      ),
    ).not.toThrow();
  });
});
