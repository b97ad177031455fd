import { latestObservationView, type TextEnv } from '@pilotrl/core';
import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAdaPlanAgent, createReActAgent } from './agent';
import { evaluate } from './evaluate';
import { rollout } from './rollout';
import { TURN_ZERO_WARNING_CODES, type TurnZeroReport, turnZeroReports } from './turn-zero-ends';
import { createVectorEnv } from './vector-env';

const act = '<thought>Step 1: look.</thought><action>look</action>';
const plan = '<global_plan>Step 1: Look around.</global_plan>';
const scripted = () =>
  createScriptedPolicy((request) => request.choices?.[0] ?? (request.kind === 'plan' ? plan : act));
const tasks = (limit: number) => corridorTasks.tasks('train', { limit });

/** Plays 4 tasks × 2 samples and returns what the turn-0 hook heard. */
async function reportsOf(
  agent: Parameters<typeof rollout>[0],
  envFactory: () => TextEnv = createCorridorEnv,
): Promise<TurnZeroReport[]> {
  const reports: TurnZeroReport[] = [];
  await rollout(
    agent,
    createVectorEnv(envFactory, { size: 8 }),
    { envId: CORRIDOR_ENV_ID, tasks: await tasks(4), groupSize: 2 },
    { onTurnZeroEnds: (report) => reports.push(report) },
  );
  return reports;
}

/** A corridor whose reset admits no command. */
const commandless = (): TextEnv => {
  const env = createCorridorEnv();
  return {
    envId: env.envId,
    reset: async (options) => ({ ...(await env.reset(options)), admissibleActions: [] }),
    step: (action) => env.step(action),
  };
};

describe('episodes that end at turn 0', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reports a first prompt that cannot fit the context, with its size, the context and the fixes', async () => {
    const agent = createReActAgent(scripted(), { contextTokens: 120, act: { maxTokens: 20 } });
    const [report, ...others] = await reportsOf(agent);
    expect(others).toEqual([]);
    expect(report).toMatchObject({
      cause: 'context_overflow',
      envId: CORRIDOR_ENV_ID,
      episodes: 8,
      total: 8,
    });
    const overflow = report!.overflow!;
    expect(overflow).toMatchObject({ budgetTokens: 100, contextTokens: 120, counter: 'policy.countTokens' });
    expect(overflow.promptTokens).toBeGreaterThan(overflow.budgetTokens);
    expect(overflow.openingChars).toBeGreaterThan(0);
    expect(report!.message).toContain(
      `8 of 8 episodes on "${CORRIDOR_ENV_ID}" ended at turn 0 with endReason 'context_overflow'`,
    );
    expect(report!.message).toContain(
      `takes ${overflow.promptTokens} tokens (counted by policy.countTokens; the opening observation alone is ${overflow.openingChars} characters)`,
    );
    expect(report!.message).toContain('contextTokens 120 less 20 kept for the answer leaves 100');
    for (const fix of ['contextTokens', '`view`', 'act.maxTokens', 'plan.maxTokens']) {
      expect(report!.message).toContain(fix);
    }
  });

  it('measures a state view the same way, and an AdaPlan plan prompt by its own reserve', async () => {
    const viewed = createReActAgent(scripted(), {
      view: latestObservationView,
      contextTokens: 40,
      act: { maxTokens: 8 },
    });
    const [fromView] = await reportsOf(viewed);
    expect(fromView?.overflow).toMatchObject({ budgetTokens: 32, contextTokens: 40 });
    expect(fromView!.overflow!.promptTokens).toBeGreaterThan(32);

    const planning = createAdaPlanAgent(scripted(), { contextTokens: 120, plan: { maxTokens: 30 } });
    const [fromPlan] = await reportsOf(planning);
    expect(fromPlan?.overflow).toMatchObject({ budgetTokens: 90 });
  });

  it('says nothing when the first prompt fits', async () => {
    expect(await reportsOf(createReActAgent(scripted(), { maxTurns: 2 }))).toEqual([]);
  });

  it('reports an env that admits no command to a choice agent', async () => {
    const agent = createReActAgent(scripted(), { actionSpace: 'choice' });
    const [report] = await reportsOf(agent, commandless);
    expect(report).toMatchObject({ cause: 'no_actions', episodes: 8, total: 8 });
    expect(report!.message).toContain("actionSpace 'free-text'");
  });

  it('reports an env that fails on reset, with its error', async () => {
    const broken = (): TextEnv => ({
      envId: CORRIDOR_ENV_ID,
      reset: async () => {
        throw new Error('the maze file is missing');
      },
      step: async () => {
        throw new Error('unreachable');
      },
    });
    const [report] = await reportsOf(createReActAgent(scripted()), broken);
    expect(report).toMatchObject({ cause: 'env_error', episodes: 8, total: 8 });
    expect(report!.message).toContain('the maze file is missing');
  });

  it('reaches the caller of evaluate', async () => {
    const reports: TurnZeroReport[] = [];
    const agent = createReActAgent(scripted(), { contextTokens: 120, act: { maxTokens: 20 } });
    const env = { taskSource: corridorTasks, vectorEnv: createVectorEnv(createCorridorEnv, { size: 4 }) };
    await evaluate(
      agent,
      env,
      'valid_seen',
      { limit: 4 },
      { onTurnZeroEnds: (report) => reports.push(report) },
    );
    expect(reports.map(({ cause, episodes, total }) => [cause, episodes, total])).toEqual([
      ['context_overflow', 4, 4],
    ]);
  });

  it('warns once per cause per process when no hook is given', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const agent = createReActAgent(scripted(), { contextTokens: 120, act: { maxTokens: 20 } });
    const play = async () =>
      rollout(agent, createVectorEnv(createCorridorEnv, { size: 4 }), {
        envId: CORRIDOR_ENV_ID,
        tasks: await tasks(4),
      });
    await play();
    await play();
    expect(emitted).toHaveBeenCalledTimes(1);
    const [message, options] = emitted.mock.calls[0]!;
    expect(message).toMatch(
      new RegExp(
        `^4 of 4 episodes on "${CORRIDOR_ENV_ID}" ended at turn 0 with endReason 'context_overflow'`,
      ),
    );
    expect(options).toEqual({ type: 'PilotRLWarning', code: TURN_ZERO_WARNING_CODES.context_overflow });
  });
});

describe('turnZeroReports', () => {
  const overflowing = {
    cause: 'context_overflow' as const,
    openingChars: 10,
    prompt: { tokens: 9, budgetTokens: 5 },
  };
  const context = (total: number) => ({ envId: 'e', total, contextTokens: 8, countsExactly: false });

  it('needs more than half of the episodes, and at least three of a larger rollout', () => {
    expect(turnZeroReports(Array(2).fill(overflowing), context(4))).toEqual([]);
    expect(turnZeroReports(Array(3).fill(overflowing), context(4))).toHaveLength(1);
    expect(turnZeroReports(Array(2).fill(overflowing), context(2))).toHaveLength(1);
    expect(turnZeroReports([overflowing], context(1))).toHaveLength(1);
  });

  it('gives each cause its own report, counting only its episodes', () => {
    const failed = { cause: 'env_error' as const, openingChars: 0, envError: 'boom' };
    const reports = turnZeroReports([overflowing, overflowing, failed], context(4));
    expect(reports.map(({ cause, episodes }) => [cause, episodes])).toEqual([
      ['context_overflow', 2],
      ['env_error', 1],
    ]);
    expect(reports[0]!.overflow?.counter).toBe('estimateTokens');
  });
});
