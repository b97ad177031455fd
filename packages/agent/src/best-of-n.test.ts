import {
  type Episode,
  type Judge,
  type JudgeInput,
  latestObservationView,
  type PlanStepVocabulary,
  type ResolvedGenerateRequest,
} from '@pilotrl/core';
import { corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { type AgentOptions, createAdaPlanAgent } from './agent';
import { evaluate } from './evaluate';
import { judgePlanScorer, type PlanScorer, valuePlanScorer } from './plan-scorers';
import { computeOf } from './search-compute';
import { valueModelOf } from './value-model';
import { recordingValueModel } from './value-model.testing';
import { createVectorEnv } from './vector-env';

const corridor = (size: number) => ({
  taskSource: corridorTasks,
  vectorEnv: createVectorEnv(() => createCorridorEnv({ maxSteps: 10 }), { size }),
});

const PLANS = {
  east: '<global_plan>\nStep 1: Walk east to the goal room.\nStep 2: Stop there.\n</global_plan>',
  west: '<global_plan>\nStep 1: Walk west to the goal room.\nStep 2: Stop there.\n</global_plan>',
};

/**
 * A planner that picks a direction by its sampling seed (so half its plans are wrong) and an
 * executor that follows the plan it is shown exactly: it walks the plan's way and stops in the
 * goal room, or at the wall.
 */
function planFollower(request: ResolvedGenerateRequest): string {
  const text = request.messages.at(-1)!.content;
  if (request.kind === 'plan') return (request.seed ?? 0) % 2 === 0 ? PLANS.east : PLANS.west;
  const goal = /go to the (\w+) room/.exec(text)![1];
  const here = [...text.matchAll(/You are in the (\w+) room/g)].at(-1)?.[1];
  const way = /Walk (east|west)/.exec(text)![1];
  if (here === goal || !request.choices!.includes(`go ${way}`)) return 'stop';
  return `go ${way}`;
}

const followerOptions: AgentOptions = {
  actionSpace: 'choice',
  view: latestObservationView,
  revision: { mode: 'never' },
  maxTurns: 10,
};

/** A judge that knows the way: 5 when the plan walks the way the oracle's plan walks, else 1. */
const wayJudge: Judge = {
  name: 'way',
  async judge(inputs: readonly JudgeInput[]) {
    return inputs.map((input) => {
      const way = (plan: readonly string[]) => /Walk (east|west)/.exec(plan[0] ?? '')?.[1];
      const score = way(input.plan) === way(input.reference!.plan) ? 5 : 1;
      const verdict = { score, reason: 'direction' };
      return {
        correctness: verdict,
        followability: verdict,
        standardization: verdict,
        flags: [],
        judge: 'way',
      };
    });
  },
};

const judgeScorer = () =>
  judgePlanScorer(wayJudge, { reference: async (task) => corridorTasks.oracle(task) });

const withoutSearch = (episodes: readonly Episode[]) =>
  episodes.map(({ metadata: { search: _, ...metadata }, ...episode }) => ({ ...episode, metadata }));

async function tinyPolicy(valueHead: boolean): Promise<TfjsPolicy> {
  const first = await createCorridorEnv().reset({ seed: 0, taskId: 'valid_seen-0' });
  return TfjsPolicy.create({
    tokenizer: Tokenizer.train([first.observation, ...first.admissibleActions, PLANS.east], {
      vocabSize: 300,
    }),
    model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 512, valueHead, seed: 5 },
    backend: 'wasm',
  });
}

const tinyAgentOptions: AgentOptions = {
  ...followerOptions,
  contextTokens: 512,
  maxTurns: 3,
  plan: { maxTokens: 12, temperature: 1 },
};

/** Plans written step by step from a fixed vocabulary, so even an untrained policy's plans parse. */
const corridorSteps: PlanStepVocabulary = {
  steps: () => ['Walk east to the goal room.', 'Walk west to the goal room.', 'Stop there.'],
  executes: (step, action) => step.includes(action.replace('go ', '')),
};

describe('best-of-N plans', () => {
  it.each([
    ['free-text', {}],
    ['step', { planSteps: corridorSteps }],
  ])('with N = 1 is plain evaluation, episode for episode (%s plans)', async (_, planOptions) => {
    const policy = await tinyPolicy(true);
    const agent = createAdaPlanAgent(policy.sampler(), { ...tinyAgentOptions, ...planOptions });
    const plain = await evaluate(agent, corridor(2), 'valid_seen', { limit: 2, seed: 4 });
    const searched = await evaluate(agent, corridor(2), 'valid_seen', {
      limit: 2,
      seed: 4,
      search: { kind: 'best-of-n', n: 1, scorer: valuePlanScorer(valueModelOf(policy)) },
    });
    expect(withoutSearch(searched.episodeRecords)).toEqual(withoutSearch(plain.episodeRecords));
    expect(searched.compute.scoredTokens).toBe(0);
  });

  it('samples the plans after the first at its own temperature, so a greedy agent still gets N plans', async () => {
    const policy = await tinyPolicy(false);
    const greedy: AgentOptions = {
      ...tinyAgentOptions,
      planSteps: corridorSteps,
      plan: { maxTokens: 12, temperature: 0 },
    };
    const agent = createAdaPlanAgent(policy.sampler(), greedy);
    // The plans each task's search chose among.
    const seen = new Map<string, string[]>();
    const recording: PlanScorer = {
      kind: 'judge',
      async score(candidates) {
        for (const { task, plan } of candidates) {
          seen.set(task.taskId, [...(seen.get(task.taskId) ?? []), plan.join(' | ')]);
        }
        return { scores: candidates.map(() => 0), scoredTokens: candidates.map(() => 0) };
      },
    };
    const plain = await evaluate(agent, corridor(4), 'valid_seen', { limit: 4, seed: 2 });
    const searched = await evaluate(agent, corridor(4), 'valid_seen', {
      limit: 4,
      seed: 2,
      search: { kind: 'best-of-n', n: 8, scorer: recording },
    });
    // Every task's 8 plans hold the greedy plan first (ties go to it) and sampled ones after it.
    expect([...seen.values()].map((plans) => plans.length)).toEqual([8, 8, 8, 8]);
    expect([...seen.values()].some((plans) => new Set(plans).size > 1)).toBe(true);
    expect(searched.episodeRecords.map((e) => e.planHistory[0]!.steps)).toEqual(
      plain.episodeRecords.map((e) => e.planHistory[0]!.steps),
    );
    // At temperature 0 for every sample, the search has nothing to choose from.
    seen.clear();
    await evaluate(agent, corridor(4), 'valid_seen', {
      limit: 4,
      seed: 2,
      search: { kind: 'best-of-n', n: 8, scorer: recording, temperature: 0 },
    });
    for (const plans of seen.values()) expect(new Set(plans).size).toBe(1);
  });

  it('raises success when the scorer prefers the plan that is right', async () => {
    const agent = createAdaPlanAgent(createScriptedPolicy(planFollower), followerOptions);
    const plain = await evaluate(agent, corridor(4), 'valid_seen', { limit: 16 });
    const best = await evaluate(agent, corridor(4), 'valid_seen', {
      limit: 16,
      search: { kind: 'best-of-n', n: 4, scorer: judgeScorer() },
    });
    expect(plain.successRate).toBeLessThan(0.8);
    expect(best.successRate).toBeGreaterThan(plain.successRate);
    // A task is lost only when all four plans walk the wrong way.
    for (const episode of best.episodeRecords) {
      const way = /Walk (east|west)/.exec(episode.planHistory[0]!.steps[0]!)![1];
      const { plan } = await corridorTasks.oracle({
        taskId: episode.taskId,
        split: 'valid_seen',
        seed: episode.seed,
      });
      expect(episode.won).toBe(plan[0]!.includes(way!));
    }
  });

  it('keeps only the chosen plan in the episode and counts the others as compute', async () => {
    const agent = createAdaPlanAgent(createScriptedPolicy(planFollower), followerOptions);
    const report = await evaluate(agent, corridor(1), 'valid_seen', {
      limit: 1,
      search: { kind: 'best-of-n', n: 3, scorer: judgeScorer() },
    });
    const [episode] = report.episodeRecords;
    const planTurnGenerations = episode!.turns[0]!.generations.filter((g) => g.kind === 'plan');
    expect(planTurnGenerations).toHaveLength(1);
    const bytes = (text: string) => new TextEncoder().encode(text).length;
    const acts = episode!.turns.reduce((sum, turn) => sum + bytes(turn.action!), 0);
    // Three plans of the same length were written; the judge read each of them.
    expect(computeOf(episode!)).toEqual({
      generatedTokens: 3 * bytes(PLANS.east) + acts,
      scoredTokens: 3 * bytes(PLANS.east),
      envSteps: episode!.turns.length,
      copies: 0,
      backtracks: 0,
    });
  });

  it('with a value scorer reads every sample through the value head', async () => {
    const policy = await tinyPolicy(true);
    const { model: recording, read } = recordingValueModel(valueModelOf(policy));
    const agent = createAdaPlanAgent(policy.sampler(), { ...tinyAgentOptions, planSteps: corridorSteps });
    const report = await evaluate(agent, corridor(2), 'valid_seen', {
      limit: 2,
      search: { kind: 'best-of-n', n: 3, scorer: valuePlanScorer(recording) },
    });
    // The agent wrote one plan per episode (revisions are off), each the best of three samples.
    expect(read).toHaveLength(2 * 3);
    expect(report.compute.scoredTokens).toBe(read.reduce((sum, length) => sum + length, 0));
    for (const episode of report.episodeRecords) {
      expect(episode.turns[0]!.generations.filter((g) => g.kind === 'plan').length).toBeGreaterThan(0);
    }
  });

  it('a value scorer on a policy without a value head says so', async () => {
    const policy = await tinyPolicy(false);
    await expect(valueModelOf(policy).values([[1, 2, 3]])).rejects.toThrow(/has no value head/);
  });
});
