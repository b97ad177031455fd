import { latestObservationView, type ResolvedGenerateRequest } from '@pilotrl/core';
import { corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { createReActAgent } from './agent';
import { evaluate } from './evaluate';
import { computeOf } from './search-compute';
import { valueModelOf } from './value-model';
import { recordingValueModel } from './value-model.testing';
import { createVectorEnv } from './vector-env';

/**
 * A corridor walker that never stops: it goes east while it can and looks around at the wall.
 * Played greedily it loses every task; it only needs to be told when to stop.
 */
const neverStops = (request: ResolvedGenerateRequest) =>
  request.choices!.includes('go east') ? 'go east' : 'look';

const agentOf = () =>
  createReActAgent(createScriptedPolicy(neverStops), {
    actionSpace: 'choice',
    view: latestObservationView,
    maxTurns: 8,
  });

const corridor = (size: number) => ({
  taskSource: corridorTasks,
  vectorEnv: createVectorEnv(() => createCorridorEnv({ maxSteps: 8 }), { size }),
});

/** Tasks of valid_seen whose goal lies east of the start. */
async function eastwardTasks(count: number): Promise<number[]> {
  const tasks = await corridorTasks.tasks('valid_seen', { limit: 40 });
  const offsets: number[] = [];
  for (const [offset, task] of tasks.entries()) {
    const { actions } = await corridorTasks.oracle(task);
    if (actions[0] === 'go east' && offsets.length < count) offsets.push(offset);
  }
  return offsets;
}

const rolloutSearch = (width: number, depth: number) => ({
  kind: 'lookahead' as const,
  width,
  depth,
  scorer: { kind: 'rollout' as const },
});

describe('lookahead search', () => {
  it('wins with a rollout scorer the tasks a greedy policy loses', async () => {
    const offsets = await eastwardTasks(6);
    for (const offset of offsets) {
      const greedy = await evaluate(agentOf(), corridor(1), 'valid_seen', { offset, limit: 1 });
      const searched = await evaluate(agentOf(), corridor(1), 'valid_seen', {
        offset,
        limit: 1,
        search: rolloutSearch(4, 1),
      });
      expect(greedy.successes).toBe(0);
      expect(searched.successes).toBe(1);
    }
  });

  it('counts its compute exactly: copies, steps on copies and on the env, tokens, backtracks', async () => {
    // valid_seen-2: five rooms, the agent in the westmost, the goal next door to the east.
    const report = await evaluate(agentOf(), corridor(1), 'valid_seen', {
      offset: 2,
      limit: 1,
      search: rolloutSearch(4, 1),
    });
    const [episode] = report.episodeRecords;
    expect(episode!.won).toBe(true);
    expect(episode!.turns.map((turn) => turn.action)).toEqual(['go east', 'stop']);
    // Turn 1 tries go east, look and stop (lost: a backtrack); turn 2 tries go east, look, stop
    // (won) and go west. The episode's own two answers were "go east" (7 byte tokens each).
    expect(computeOf(episode!)).toEqual({
      generatedTokens: 14,
      scoredTokens: 0,
      envSteps: 3 + 4 + 2,
      copies: 3 + 4,
      backtracks: 1,
    });
    expect(episode!.metadata.search).toEqual({ kind: 'lookahead', overriddenTurns: [1] });
    expect(report.compute).toEqual(computeOf(episode!));
  });

  it('plays each branch on greedily to the depth, and counts those steps and tokens too', async () => {
    const report = await evaluate(agentOf(), corridor(1), 'valid_seen', {
      offset: 2,
      limit: 1,
      search: rolloutSearch(4, 2),
    });
    const [episode] = report.episodeRecords;
    expect(episode!.won).toBe(true);
    // Every branch still running after its candidate plays one more step ("go east", 7 tokens):
    // two on turn 1 (go east, look), three on turn 2 (go east, look, go west).
    expect(computeOf(episode!)).toEqual({
      generatedTokens: 14 + 5 * 7,
      scoredTokens: 0,
      envSteps: 3 + 4 + 5 + 2,
      copies: 7,
      backtracks: 1,
    });
  });

  it('abandons branches its branch check rejects', async () => {
    const report = await evaluate(agentOf(), corridor(1), 'valid_seen', {
      offset: 2,
      limit: 1,
      search: { ...rolloutSearch(4, 1), branchCheck: ({ action }) => action !== 'stop' },
    });
    const [episode] = report.episodeRecords;
    // Stopping is never allowed, so the search cannot win: each of the 8 turns abandons its stop
    // branch, and on the last one the step limit cuts the other two branches (look, go west) too.
    expect(episode!.won).toBe(false);
    expect(episode!.turns.map((turn) => turn.action)).not.toContain('stop');
    expect(episode!.turns).toHaveLength(8);
    expect(computeOf(episode!)!.backtracks).toBe(8 + 2);
  });

  it('with width 1 plays what the policy answers', async () => {
    const plain = await evaluate(agentOf(), corridor(2), 'valid_seen', { limit: 4 });
    const searched = await evaluate(agentOf(), corridor(2), 'valid_seen', {
      limit: 4,
      search: rolloutSearch(1, 1),
    });
    const actions = (report: typeof plain) => report.episodeRecords.map((e) => e.turns.map((t) => t.action));
    expect(actions(searched)).toEqual(actions(plain));
  });

  it('refuses a vector env whose envs cannot be copied', async () => {
    const { copy: _, ...plainEnv } = createCorridorEnv();
    const vectorEnv = createVectorEnv(() => ({ ...plainEnv }), { size: 1 });
    await expect(
      evaluate(agentOf(), { taskSource: corridorTasks, vectorEnv }, 'valid_seen', {
        limit: 1,
        search: rolloutSearch(2, 1),
      }),
    ).rejects.toThrow(/cannot copy its state/);
  });
});

describe('lookahead search with a value scorer', () => {
  it('reads each still-running branch and each starting state through the value head', async () => {
    const first = await createCorridorEnv().reset({ seed: 0, taskId: 'valid_seen-0' });
    const policy = await TfjsPolicy.create({
      tokenizer: Tokenizer.train([first.observation, ...first.admissibleActions], { vocabSize: 300 }),
      model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 512, valueHead: true, seed: 2 },
      backend: 'wasm',
    });
    const { model: recording, read } = recordingValueModel(valueModelOf(policy));
    const agent = createReActAgent(policy.sampler(), {
      actionSpace: 'choice',
      view: latestObservationView,
      maxTurns: 3,
      contextTokens: 512,
    });
    const report = await evaluate(agent, corridor(2), 'valid_seen', {
      limit: 2,
      search: { kind: 'lookahead', width: 2, depth: 2, scorer: { kind: 'value', model: recording } },
    });
    expect(read.length).toBeGreaterThan(0);
    expect(report.compute.scoredTokens).toBe(read.reduce((sum, length) => sum + length, 0));
    expect(report.compute.copies).toBe(2 * report.episodeRecords.reduce((sum, e) => sum + e.turns.length, 0));
  });
});
