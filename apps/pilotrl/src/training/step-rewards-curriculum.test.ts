// Per-turn rewards in a curriculum: `step_pass` (paid when the env's check of a plan step passes)
// and `loop_penalty` in the config, refused where the env or the plans cannot be checked; the step
// checks the rollout records as it plays ALFWorld, the same as a replay of the finished episodes
// finds; and a tiny ALFWorld run that records the checks, credits them to turns and reports them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdaPlanAgent, createVectorEnv, rollout } from '@pilotrl/agent';
import {
  ConfigError,
  createRng,
  type Episode,
  type GenerateRequest,
  type GenerateResult,
  type Policy,
  type TaskRef,
  turnRewards,
} from '@pilotrl/core';
import {
  ALFWORLD_ENV_ID,
  AlfworldEnv,
  alfworldPlanOf,
  alfworldPlanSteps,
  alfworldStateView,
  createGeneratedTaskSource,
} from '@pilotrl/env-alfworld';
import { loopingTurns, recordStepChecks } from '@pilotrl/rewards';
import { describe, expect, it } from 'vitest';
import { type CurriculumConfigInput, parseConfig } from '../config/curriculum-config';
import { checkEnvAndSplits } from '../config/preflight';
import type { EnvProvider } from '../plugins/registry';
import { readJsonl } from '../run/jsonl';
import { runEnvOf, runEnvsFor } from '../run/run-envs';
import { spawnPilotrl } from '../tiny-corridor.testing';

const stage = {
  kind: 'joint' as const,
  iterations: 1,
  tasksPerIteration: 1,
  groupSize: 2,
  learningRate: 1e-3,
  rewards: { outcome: 1, step_pass: 0.2, loop_penalty: 0.1 },
};
const config = (overrides: Partial<CurriculumConfigInput>) =>
  parseConfig({
    env: { id: 'alfworld', maxSteps: 10 },
    agent: { paradigm: 'adaplan', actionSpace: 'choice', plan: 'steps' },
    stages: [stage],
    ...overrides,
  });

describe('step_pass and loop_penalty in a curriculum config', () => {
  it('are reward names; step_pass needs plans in the env plan-step vocabulary', () => {
    expect(config({}).stages[0]!.rewards).toEqual({ outcome: 1, step_pass: 0.2, loop_penalty: 0.1 });
    expect(() => config({ agent: { paradigm: 'adaplan', plan: 'free-text' } })).toThrow(
      /stages\.0\.rewards\.step_pass: step_pass checks plan steps the env can evaluate, which free-text plans are not/,
    );
    expect(() => config({ agent: { paradigm: 'react' } })).toThrow(
      /step_pass scores plans, but agent\.paradigm is "react"/,
    );
  });

  it('refuses, before the run starts, an env that cannot check plan steps, naming it', async () => {
    const [corridor] = runEnvsFor(config({ env: { id: 'testkit/corridor', maxSteps: 4 } }));
    const refusal = checkEnvAndSplits(corridor!);
    await expect(refusal).rejects.toThrow(ConfigError);
    await expect(refusal).rejects.toThrow(
      /stages\[0\]\.rewards\.step_pass: env "testkit\/corridor" cannot check plan steps against its state/,
    );
    const [alfworld] = runEnvsFor(config({ eval: { splits: ['valid_seen'] } }));
    await expect(checkEnvAndSplits(alfworld!)).resolves.toBeUndefined();
  });

  it('refuses an env whose own plan-step vocabulary has a step it cannot check', async () => {
    const [corridor] = runEnvsFor(config({ env: { id: 'testkit/corridor', maxSteps: 4 } }));
    const { provider } = corridor!;
    // The corridor with checks for "go east" only, and a vocabulary that also offers "go west".
    const partlyChecking: EnvProvider = {
      ...provider,
      createEnv: (options) =>
        Object.assign(provider.createEnv(options), {
          cannotCheckStep: (step: string) => (step === 'go east' ? undefined : 'only "go east" is checked'),
          checkStep: () => ({ passed: () => false }),
        }),
      planSteps: { steps: () => ['go east', 'go west'], executes: () => false },
    };
    await expect(checkEnvAndSplits(runEnvOf(corridor!.config, { provider: partlyChecking }))).rejects.toThrow(
      /env "testkit\/corridor" cannot check the plan step "go west" of its own vocabulary: only "go east" is checked/,
    );
  });
});

/**
 * A player of one ALFWorld task that mostly follows the oracle and strays at random: each command is
 * the oracle's next one where the env admits it (and the coin says so), else a random admissible
 * one; each plan step is the oracle plan's step at that position (where the coin says so and the
 * vocabulary offers it), else a random continuation. Seeded, so the episodes repeat.
 */
function strayingOracle(actions: readonly string[], plan: readonly string[], seed: number): Policy {
  const rng = createRng(seed);
  let next = 0;
  const pick = (choices: readonly string[], preferred: string | undefined) =>
    preferred !== undefined && rng.float() < 0.8 ? preferred : choices[rng.int(choices.length)]!;
  return {
    name: 'straying-oracle',
    version: 0,
    async generate(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
      return requests.map((request) => {
        const choices = request.choices!;
        const open = /Step (\d+): ([^\n]*)$/.exec(request.messages.at(-1)!.content);
        let text: string;
        if (open === null) {
          text = pick(choices, choices.includes(actions[next]!) ? actions[next] : undefined);
          if (text === actions[next]) next += 1;
        } else {
          const target = plan[Number(open[1]) - 1];
          const written = open[2]!;
          text = pick(
            choices,
            target === undefined ? undefined : choices.find((c) => `${target}\n`.startsWith(written + c)),
          );
        }
        return {
          text,
          tokenIds: [],
          logprobs: [],
          promptTokenIds: [],
          finishReason: 'choice',
          choiceIndex: choices.indexOf(text),
          policyVersion: 0,
        };
      });
    },
  };
}

describe('step checks recorded by the rollout on ALFWorld', () => {
  it('are the ones a replay of each finished episode records', async () => {
    const source = createGeneratedTaskSource();
    const tasks = await source.tasks('train', { offset: 40, limit: 10 });
    const episodes: Episode[] = [];
    for (const [index, task] of [...tasks, ...tasks].entries()) {
      const { actions } = await source.oracle!(task);
      const agent = createAdaPlanAgent(strayingOracle(actions, alfworldPlanOf(actions), index), {
        actionSpace: 'choice',
        view: alfworldStateView,
        planSteps: alfworldPlanSteps,
        maxPlanSteps: 6,
        maxTurns: 25,
        contextTokens: 100_000,
        revision: { mode: 'every_k', k: 3 },
      });
      const vectorEnv = createVectorEnv(() => new AlfworldEnv({ maxSteps: 25 }), { size: 1 });
      const played = await rollout(agent, vectorEnv, {
        envId: ALFWORLD_ENV_ID,
        tasks: [task] as TaskRef[],
        runId: `straying-${index}`,
        recordStepChecks: true,
      });
      await vectorEnv.close();
      episodes.push(...played);
    }
    const replaying = new AlfworldEnv({ maxSteps: 25 });
    for (const episode of episodes) {
      const { stepChecks: recorded, ...finished } = episode;
      expect(recorded, episode.id).toEqual(await recordStepChecks(replaying, finished));
    }
    // The episodes pass steps, and revise plans after steps passed (checking resumes after them).
    const passes = episodes.map((episode) => episode.stepChecks!.passed);
    expect(passes.flat().length).toBeGreaterThan(15);
    const revisedAfterPass = episodes.filter((episode, at) =>
      episode.planHistory.some((revision) => revision.turn > (passes[at]![0]?.turn ?? Infinity)),
    );
    expect(revisedAfterPass.length).toBeGreaterThan(2);
  }, 120_000);
});

describe('a tiny ALFWorld curriculum with per-turn rewards', () => {
  it('records step checks, credits step passes and loops to turns, and reports them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-step-pass-'));
    const file = join(dir, 'step-pass.yaml');
    writeFileSync(
      file,
      [
        'name: step-pass-test',
        'seed: 4',
        'env: { id: alfworld, maxSteps: 8 }',
        'policy: { size: tiny, tokenizerCorpusTasks: 4, vocabSize: 360, contextLength: 1024 }',
        'agent: { paradigm: adaplan, prompt: view, actionSpace: choice, plan: steps, planRevision: never, maxPlanSteps: 4 }',
        'sft: { demonstrations: 4, steps: 2, batchSize: 4, learningRate: 0.01, stepsPerIteration: 2, warmupSteps: 0 }',
        'stages:',
        '  - { kind: follow, iterations: 1, tasksPerIteration: 2, groupSize: 2, learningRate: 0.001, estimator: turn-level, rewards: { outcome: 1, step_pass: 0.2, loop_penalty: 0.1 } }',
        'eval: { episodes: 1, every: 10, splits: [valid_seen] }',
        'checkpoint: { every: 10, keep: 1 }',
        'sampleEpisodes: 4',
      ].join('\n'),
    );
    const out = join(dir, 'run');
    const { code, stderr } = await spawnPilotrl(['train', '--config', file, '--out', out]);
    expect(code, stderr).toBe(0);

    const metrics = readJsonl(join(out, 'metrics.jsonl')) as Record<string, number | string>[];
    const follow = metrics.find((m) => m.phase === 'follow')!;
    expect(follow['charts/plan_steps_passed']).toBeGreaterThanOrEqual(0);
    expect(follow['charts/plan_step_pass_rate']).toBeLessThanOrEqual(1);
    expect(follow['rewards/step_pass']).toBeCloseTo(Number(follow['charts/plan_steps_passed']) * 1, 10);
    expect(follow).toHaveProperty('rewards/loop_penalty');

    const logged = readJsonl(join(out, 'episodes.jsonl')) as { phase: string; episode: Episode }[];
    const episodes = logged.filter((e) => e.phase === 'follow').map((e) => e.episode);
    expect(episodes.length).toBeGreaterThan(0);
    for (const episode of episodes) {
      const { passed, planSteps } = episode.stepChecks!;
      expect(planSteps).toBe(episode.planHistory.at(-1)!.steps.length);
      // Each turn's share: 0.2 per step passed at it, -0.1 if it loops, and the outcome at the last.
      const loops = loopingTurns(episode);
      const expected = episode.turns.map(
        (turn, t) =>
          0.2 * passed.filter((pass) => pass.turn === turn.index).length -
          (loops[t] ? 0.1 : 0) +
          (t === episode.turns.length - 1 ? episode.rewardComponents.outcome! : 0),
      );
      const shares = turnRewards(episode)!;
      for (const [t, share] of shares.entries()) expect(share).toBeCloseTo(expected[t]!, 9);
      expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(episode.reward!, 9);
      expect(episode.rewardComponents.step_pass).toBeCloseTo(passed.length, 10);
    }
  }, 240_000);
});
