import type { StepResult, TextEnv } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { corridorTasks, createCorridorEnv, type EnvCheckOptions, runEnvChecks } from './index';

const options: EnvCheckOptions = {
  resets: [{ seed: 1 }, { seed: 2 }],
  stepLimit: { maxSteps: 4, create: () => createCorridorEnv({ maxSteps: 4 }) },
  taskSource: corridorTasks,
};

/** A corridor env whose step results pass through `change`, to build envs that break one rule. */
function alteredCorridor(
  change: (result: StepResult, action: string | undefined) => StepResult,
): () => TextEnv {
  return () => {
    const env = createCorridorEnv();
    return {
      envId: env.envId,
      reset: async (o) => change(await env.reset(o), undefined),
      step: async (action) => change(await env.step(action), action),
    };
  };
}

async function failures(factory: () => TextEnv, checkOptions = options) {
  const results = await runEnvChecks(factory, checkOptions);
  return results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.problem}`);
}

describe('runEnvChecks', () => {
  it('passes a conforming env on every check', async () => {
    const results = await runEnvChecks(() => createCorridorEnv(), options);
    expect(results.map((r) => r.problem)).toEqual(results.map(() => ''));
    expect(results).toHaveLength(9);
  });

  it('catches an env that throws on a malformed action, naming the action', async () => {
    const found = await failures(
      alteredCorridor((result, action) => {
        if (action !== undefined && action.length > 1000) throw new Error('action too long');
        return result;
      }),
    );
    expect(found).toEqual([
      expect.stringMatching(/^inadmissible.*a 100 KB string threw Error: action too long/),
    ]);
  });

  it('catches state shared between env instances', async () => {
    let calls = 0;
    const found = await failures(
      alteredCorridor((result) => ({ ...result, observation: `${result.observation} ${calls++}` })),
    );
    expect(found).toEqual([expect.stringMatching(/^the same reset options.*observation/)]);
  });

  it('catches info that does not survive JSON', async () => {
    const found = await failures(
      alteredCorridor((result) => ({ ...result, info: { ...result.info, hint: undefined } })),
    );
    expect(found).toEqual([expect.stringMatching(/^info survives.*\.hint/)]);
  });

  it('catches an admissible action the env refuses', async () => {
    const found = await failures(
      alteredCorridor((result, action) =>
        action === 'look' ? { ...result, info: { ...result.info, valid: false } } : result,
      ),
    );
    expect(found).toEqual([
      expect.stringMatching(/^every admissible action.*"look".*valid = false/),
      expect.stringMatching(/^inadmissible.*"look".*the admissible action was refused/),
    ]);
  });

  it('catches an ignored step limit and results outside the schema', async () => {
    const noLimit = await failures(() => createCorridorEnv(), {
      ...options,
      stepLimit: { maxSteps: 3, create: () => createCorridorEnv({ maxSteps: 30 }) },
    });
    expect(noLimit.some((f) => /^the step limit \(3\).*did not report truncated: true/.test(f))).toBe(true);
    const badReward = await failures(alteredCorridor((result) => ({ ...result, reward: Number.NaN })));
    expect(badReward.length).toBeGreaterThan(5);
    expect(badReward[0]).toMatch(/stepResultSchema: reward/);
  });

  it('catches an env that plays on before reset instead of throwing', async () => {
    const found = await failures(() => {
      const env = createCorridorEnv();
      let started = false;
      return {
        envId: env.envId,
        reset: (o) => {
          started = true;
          return env.reset(o);
        },
        step: async (a) =>
          started ? env.step(a) : { ...(await env.reset({ seed: 0 })), info: { won: false, valid: true } },
      };
    });
    expect(found).toEqual([expect.stringMatching(/^step before reset.*returned instead of throwing/)]);
  });

  it('rejects options without a step limit, saying which key is missing', async () => {
    await expect(runEnvChecks(() => createCorridorEnv(), {} as EnvCheckOptions)).rejects.toThrow(/stepLimit/);
  });
});
