import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { readRunConfig } from '../run/run-dir';
import { envCurricula, loadConfigFile, modelDimensions, parseConfig } from './curriculum-config';
import { presetConfig, presets } from './presets';

const minimal = {
  stages: [
    {
      kind: 'joint',
      iterations: 2,
      tasksPerIteration: 2,
      groupSize: 4,
      learningRate: 1e-4,
      rewards: { outcome: 1 },
    },
  ],
};

function problems(value: unknown): string {
  try {
    parseConfig(value);
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected the config to be rejected');
}

describe('curriculum config', () => {
  it('fills defaults: the built-in ALFWorld generator, AdaPlan, PilotRL clip settings', () => {
    const config = parseConfig(minimal);
    expect(config.env).toMatchObject({ id: 'alfworld' });
    expect(config.agent.paradigm).toBe('adaplan');
    expect(config.stages[0]!.loss).toMatchObject({
      clipLow: 0.2,
      dualClip: 3,
      aggregation: 'token-mean',
      klCoef: 0,
    });
    expect(config.eval.splits).toEqual(['valid_seen', 'valid_unseen']);
  });

  it('names an unknown key and lists the keys allowed there', () => {
    const message = problems({ ...minimal, policy: { size: 'small', widht: 3 } });
    expect(message).toContain('policy: unknown key "widht"; allowed here: kind, size, dModel, layers');
    const stageMessage = problems({ stages: [{ ...minimal.stages[0], lr: 1 }] });
    expect(stageMessage).toContain('stages.0: unknown key "lr"');
    expect(stageMessage).toContain('learningRate');
  });

  it('accepts expert iteration only where it can work: choice actions, ReAct or plan steps, demonstrations to mix', () => {
    const stage = { ...minimal.stages[0], algorithm: 'expert-iteration', groupSize: 1 };
    const ok = parseConfig({
      agent: { paradigm: 'react', actionSpace: 'choice', prompt: 'view' },
      sft: { demonstrations: 10, steps: 10, learningRate: 1e-3 },
      stages: [stage],
    });
    expect(ok.stages[0]).toMatchObject({
      algorithm: 'expert-iteration',
      expertIteration: { mix: 0.8, sftSteps: 48 },
    });
    expect(
      problems({
        agent: { paradigm: 'react' },
        sft: { demonstrations: 1, steps: 1, learningRate: 1 },
        stages: [stage],
      }),
    ).toContain(
      'stages.0.algorithm: expert iteration replays and shortens the commands played; it needs agent.actionSpace: choice',
    );
    expect(
      problems({
        agent: { actionSpace: 'choice' },
        sft: { demonstrations: 1, steps: 1, learningRate: 1 },
        stages: [stage],
      }),
    ).toContain("expert iteration replays plans in the env's plan-step vocabulary, not free text");
    const planning = parseConfig({
      agent: { actionSpace: 'choice', plan: 'steps', prompt: 'view' },
      sft: { demonstrations: 1, steps: 1, learningRate: 1 },
      stages: ['follow', 'plan', 'joint'].map((kind) => ({
        ...stage,
        kind,
        rewards: kind === 'plan' ? { outcome: 1, plan_quality: 0.5 } : { outcome: 1 },
      })),
    });
    expect(planning.stages.map((s) => s.algorithm)).toEqual(Array(3).fill('expert-iteration'));
    expect(problems({ agent: { paradigm: 'react', actionSpace: 'choice' }, stages: [stage] })).toContain(
      'stages.0.expertIteration.mix: mixes in demonstrations, but there is no `sft` section',
    );
    parseConfig({
      agent: { paradigm: 'react', actionSpace: 'choice' },
      stages: [{ ...stage, expertIteration: { mix: 1 } }],
    });
  });

  it('names an unknown stage kind, estimator and reward with the allowed values', () => {
    expect(problems({ stages: [{ ...minimal.stages[0], kind: 'warmup' }] })).toMatch(
      /stages\.0\.kind: .*follow.*plan.*joint/,
    );
    expect(problems({ stages: [{ ...minimal.stages[0], estimator: 'ppo2' }] })).toMatch(
      /stages\.0\.estimator: .*grpo/,
    );
    expect(problems({ stages: [{ ...minimal.stages[0], rewards: { outcome: 1, sucess: 1 } }] })).toContain(
      'stages.0.rewards.sucess: unknown reward; allowed: format, invalid_action, loop_penalty, outcome, overlong, plan_adherence, plan_quality, repeated_action, step_pass',
    );
  });

  it('rejects inconsistent settings, naming the key', () => {
    const stage = minimal.stages[0]!;
    expect(problems({ stages: [{ ...stage, estimator: 'gae' }] })).toContain(
      'stages.0.estimator: estimator "gae" needs a value head; set policy.valueHead: true',
    );
    parseConfig({ policy: { valueHead: true }, stages: [{ ...stage, estimator: 'gae' }] });
    expect(
      problems({ agent: { paradigm: 'react', plan: 'steps', actionSpace: 'choice' }, stages: [stage] }),
    ).toContain('agent.plan: plan steps are AdaPlan plans');
    expect(problems({ agent: { plan: 'steps' }, stages: [stage] })).toContain(
      'agent.plan: plan steps are written as constrained choices; set agent.actionSpace: choice too',
    );
    expect(
      problems({
        agent: { plan: 'steps', actionSpace: 'choice' },
        llm: { baseUrl: 'http://localhost:1/v1', model: 'm' },
        stages: [{ ...stage, kind: 'follow', planSource: 'llm' }],
      }),
    ).toContain('stages.0.planSource: an LLM writes free-text plans');
    const sft = { demonstrations: 10, steps: 10, learningRate: 1e-3 };
    expect(problems({ sft: { ...sft, plans: 'alternatives' }, stages: [stage] })).toContain(
      'sft.plans: plans: alternatives needs demonstrator: searching (the oracle plays its own plan only)',
    );
    parseConfig({ sft: { ...sft, demonstrator: 'searching', plans: 'alternatives' }, stages: [stage] });
    expect(problems({ stages: [{ ...stage, kind: 'follow', planCandidates: 3 }] })).toContain(
      "stages.0.planCandidates: candidate plans are drawn in the env's plan steps",
    );
    expect(problems({ agent: { paradigm: 'react' }, stages: [{ ...stage, kind: 'follow' }] })).toContain(
      'stages.0.kind: stage "follow" trains plans, but agent.paradigm is "react"',
    );
    expect(problems({ stages: [{ ...stage, kind: 'plan' }] })).toContain(
      'stages.0.rewards: stage "plan" needs a `plan_quality`',
    );
    expect(problems({ stages: [{ ...stage, rewards: { outcome: 1, plan_quality: 1 } }] })).toContain(
      'stages.0.rewards.plan_quality: plan_quality is a stage "plan" reward only',
    );
    expect(problems({ stages: [{ ...stage, groupSize: 1 }] })).toContain(
      'stages.0.groupSize: estimator "grpo"',
    );
    expect(
      problems({ stages: [{ ...stage, kind: 'follow', planSource: 'llm', rewards: { outcome: 1 } }] }),
    ).toContain('stages.0.planSource: "llm" needs a top-level `llm` section');
    const planStage = { ...stage, kind: 'plan', rewards: { outcome: 1, plan_quality: 1 } };
    expect(problems({ stages: [{ ...planStage, judge: 'llm' }] })).toContain(
      'stages.0.judge: "llm" needs a top-level `llm` section',
    );
    expect(problems({ stages: [{ ...planStage, judge: 'oracle' }] })).toContain(
      'stages.0.judge: unknown judge "oracle"; known: llm, reference',
    );
    expect(problems({ ...minimal, policy: { dModel: 30, heads: 4 } })).toContain(
      'policy.heads: dModel 30 is not divisible',
    );
    expect(problems({})).toContain('nothing to train');
  });

  it('takes a Tinker policy with what its server needs, and refuses what it cannot train', () => {
    const tinker = {
      kind: 'tinker',
      baseUrl: 'http://127.0.0.1:8000',
      baseModel: 'Qwen/Qwen3-8B',
      contextLength: 4096,
    };
    const config = parseConfig({ ...minimal, policy: tinker });
    expect(config.policy).toMatchObject(tinker);
    expect(parseConfig(minimal).policy.kind).toBe('tfjs');
    const missing = problems({ ...minimal, policy: { kind: 'tinker' } });
    expect(missing).toContain('policy.baseUrl: a Tinker policy needs policy.baseUrl');
    expect(missing).toContain('policy.baseModel: a Tinker policy needs policy.baseModel');
    expect(missing).toContain("policy.contextLength: a Tinker policy needs the model's context length");
    const stage = minimal.stages[0]!;
    const refused = problems({
      policy: { ...tinker, valueHead: true, backend: 'wasm' },
      agent: { actionSpace: 'choice' },
      stages: [
        { ...stage, loss: { entropyCoef: 0.01 } },
        { ...stage, algorithm: 'expert-iteration', groupSize: 1 },
      ],
    });
    expect(refused).toContain('policy.valueHead: the Tinker API trains no value head');
    expect(refused).toContain(
      'policy.backend: is a key of a Hugging Face or tfjs policy; set policy.kind: hf or tfjs, or drop it',
    );
    expect(refused).toContain('agent.actionSpace: choice actions need constrained decoding');
    expect(refused).toContain('stages.0.loss.entropyCoef: the Tinker API returns no entropies');
    expect(refused).toContain('stages.1.algorithm: expert iteration replays choice actions');
    // Tinker keys on a tfjs policy are a slip, not silently ignored.
    expect(problems({ ...minimal, policy: { baseUrl: 'http://127.0.0.1:8000' } })).toContain(
      'policy.baseUrl: is a key of a Tinker policy; set policy.kind: tinker, or drop it',
    );
    // ...and tfjs keys on a Tinker policy likewise.
    expect(problems({ ...minimal, policy: { ...tinker, dModel: 8192 } })).toContain(
      'policy.dModel: is a key of a tfjs policy; set policy.kind: tfjs, or drop it',
    );
    // A server's model is not this machine's to hold: no training-memory bound.
    parseConfig({ ...minimal, policy: { ...tinker, contextLength: 16_384 } });
  });

  it('reports every problem at once', () => {
    const message = problems({ seed: -1, stages: [{ kind: 'joint' }] });
    expect(message).toContain('seed:');
    expect(message).toContain('stages.0.iterations');
    expect(message).toContain('stages.0.learningRate');
  });

  it('loads YAML and JSON files and names the file in errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-config-'));
    const yamlPath = join(dir, 'run.yaml');
    writeFileSync(
      yamlPath,
      'name: mine\npolicy:\n  size: tiny\nstages:\n  - kind: joint\n    iterations: 2\n    tasksPerIteration: 2\n    groupSize: 2\n    learningRate: 0.001\n    rewards: { outcome: 1 }\n',
    );
    await expect(loadConfigFile(yamlPath)).resolves.toMatchObject({ name: 'mine', policy: { size: 'tiny' } });
    const jsonPath = join(dir, 'run.json');
    writeFileSync(jsonPath, JSON.stringify({ ...minimal, evals: {} }));
    await expect(loadConfigFile(jsonPath)).rejects.toThrow(`Invalid curriculum in ${jsonPath}`);
    writeFileSync(jsonPath, '{ "stages": ');
    await expect(loadConfigFile(jsonPath)).rejects.toThrow(/is not valid JSON/);
  });

  it('ships valid presets; paper carries PilotRL reference hyperparameters', () => {
    for (const name of Object.keys(presets)) expect(presetConfig(name).name).toBe(name);
    const paper = presetConfig('paper');
    for (const stage of paper.stages) {
      expect(stage).toMatchObject({ estimator: 'grpo', groupSize: 16 });
      expect(stage.loss).toMatchObject({
        clipLow: 0.2,
        clipHigh: 0.2,
        dualClip: 3,
        klCoef: 0,
        aggregation: 'token-mean',
      });
      expect(stage.rewards.overlong).toBeGreaterThan(0);
    }
    expect(paper.stages.map((s) => s.kind)).toEqual(['follow', 'plan', 'joint']);
    expect(presetConfig('react-baseline').agent.paradigm).toBe('react');
    expect(() => presetConfig('fast')).toThrow(
      'Unknown preset "fast". Presets: quick, paper, paper-ppo, react-baseline',
    );
  });

  it('ships valid curriculum files in configs/', async () => {
    const dir = join(import.meta.dirname, '..', '..', 'configs');
    const files = readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files)
      expect((await loadConfigFile(join(dir, file))).stages.length, file).toBeGreaterThan(0);
  });

  it('resolves named model sizes with explicit overrides', () => {
    expect(modelDimensions(parseConfig({ ...minimal, policy: { size: 'tiny', layers: 3 } }).policy)).toEqual({
      dModel: 32,
      layers: 3,
      heads: 2,
      contextLength: 256,
    });
  });
});

describe('sizes a run cannot hold', () => {
  const stage = minimal.stages[0]!;

  it('refuses a group or task count past its bound, naming the stage key', () => {
    expect(problems({ stages: [{ ...stage, groupSize: 1e9 }] })).toContain(
      'stages.0.groupSize: must be at most 1024 (got 1000000000)',
    );
    expect(problems({ stages: [stage, { ...stage, tasksPerIteration: 1e9 }] })).toContain(
      'stages.1.tasksPerIteration: must be at most 100000 (got 1000000000)',
    );
    expect(problems({ ...minimal, sft: { demonstrations: 1e9, steps: 1e12, learningRate: 1 } })).toMatch(
      /sft\.demonstrations: must be at most 50000 .*\n {2}sft\.steps: must be at most 10000000/,
    );
    expect(problems({ ...minimal, env: { maxSteps: 1e6 }, eval: { episodes: 1e9 } })).toMatch(
      /env\.maxSteps: must be at most 1000 .*\n {2}eval\.episodes: must be at most 100000/,
    );
  });

  it('refuses dModel 1000000 at load, from a file as from an object', async () => {
    expect(problems({ ...minimal, policy: { dModel: 1e6 } })).toContain(
      'policy.dModel: must be at most 8192 (got 1000000)',
    );
    const path = join(mkdtempSync(join(tmpdir(), 'pilotrl-bounds-')), 'huge.yaml');
    writeFileSync(path, `policy: { dModel: 1000000 }\nstages: ${JSON.stringify(minimal.stages)}\n`);
    await expect(loadConfigFile(path)).rejects.toThrow('policy.dModel: must be at most 8192 (got 1000000)');
  });

  it('refuses a resumed run whose saved config asks for too much', () => {
    const runDir = mkdtempSync(join(tmpdir(), 'pilotrl-bounds-'));
    writeFileSync(join(runDir, 'config.json'), JSON.stringify({ stages: [{ ...stage, groupSize: 1e9 }] }));
    writeFileSync(join(runDir, 'manifest.json'), '{}');
    expect(() => readRunConfig(runDir)).toThrow('stages.0.groupSize: must be at most 1024 (got 1000000000)');
  });

  it('refuses a model whose training would not fit in memory, naming the key and the estimate', () => {
    expect(problems({ ...minimal, policy: { dModel: 8192, layers: 128 } })).toContain(
      'policy.dModel: 8192 (with layers 128, heads 4, contextLength 384, vocabSize 600) implies 1.0e11 parameters and about 3.5 TiB to train',
    );
    expect(problems({ ...minimal, policy: { contextLength: 16_384 } })).toMatch(
      /policy\.contextLength: 16384 \(with dModel 64, layers 2, heads 4, vocabSize 600\) implies .* the limit is 16 GiB/,
    );
  });

  it('refuses rollouts that hold more turns than memory takes', () => {
    expect(problems({ stages: [{ ...stage, tasksPerIteration: 100_000, groupSize: 64 }] })).toContain(
      'stages.0.tasksPerIteration: 100000 × groupSize 64 × env.maxSteps 30 = 1.9e8 turns per iteration, about 4.3 TiB held at policy.contextLength 384; the limit is 4 GiB',
    );
  });

  it("refuses a vocabulary smaller than the tokenizer's special and byte tokens", () => {
    expect(problems({ ...minimal, policy: { vocabSize: 100 } })).toContain(
      'policy.vocabSize: must be at least 267 (got 100)',
    );
    expect(problems({ ...minimal, policy: { contextLength: 1 } })).toContain(
      'policy.contextLength: must be at least 2 (got 1)',
    );
  });

  it('accepts a large run that fits', () => {
    const config = parseConfig({
      env: { maxSteps: 50 },
      policy: { size: 'base', dModel: 256, layers: 6, heads: 8, contextLength: 1024, vocabSize: 4000 },
      sft: { demonstrations: 5000, steps: 20_000, batchSize: 64, learningRate: 1e-3 },
      stages: [{ ...stage, iterations: 500, tasksPerIteration: 64, groupSize: 16 }],
      eval: { episodes: 500 },
    });
    expect(modelDimensions(config.policy)).toMatchObject({ dModel: 256, layers: 6, contextLength: 1024 });
  });

  it.each(['quick', 'paper', 'react-baseline', 'reproduce-alfworld'])(
    'loads the shipped preset %s',
    (name) => {
      expect(presetConfig(name).name).toBe(name);
    },
  );
});

describe('env mixture', () => {
  const mixture = (envs: unknown[], rest: object = {}) => ({ ...minimal, env: { mixture: envs }, ...rest });
  const corridor = { id: 'testkit/corridor', weight: 2, maxSteps: 4 };
  const keyDoor = { id: 'testkit/key-door', weight: 1 };

  it('gives each env its weight and its single-env settings, the single form unchanged', () => {
    const config = parseConfig(mixture([corridor, keyDoor]));
    expect(envCurricula(config).map(({ id, weight, config }) => [id, weight, config.env])).toEqual([
      ['testkit/corridor', 2, { id: 'testkit/corridor', options: {}, trainSplit: 'train', maxSteps: 4 }],
      ['testkit/key-door', 1, { id: 'testkit/key-door', options: {}, trainSplit: 'train', maxSteps: 30 }],
    ]);
    expect(parseConfig(minimal).env).toEqual({
      id: 'alfworld',
      options: {},
      trainSplit: 'train',
      maxSteps: 30,
    });
    expect(envCurricula(parseConfig(minimal))).toMatchObject([{ id: 'alfworld', weight: 1 }]);
  });

  it("lays an env's agent settings over the top-level agent", () => {
    const config = parseConfig(
      mixture([corridor, { ...keyDoor, agent: { paradigm: 'react', historyWindow: 5 } }], {
        agent: { prompt: 'compact', historyWindow: 1 },
      }),
    );
    const [first, second] = envCurricula(config);
    expect(first!.config.agent).toMatchObject({ paradigm: 'adaplan', prompt: 'compact', historyWindow: 1 });
    expect(second!.config.agent).toMatchObject({ paradigm: 'react', prompt: 'compact', historyWindow: 5 });
  });

  it('refuses an unknown env, a weight that is not positive, a duplicate env and a mixture of one', () => {
    expect(problems(mixture([corridor, { id: 'mase', weight: 1 }]))).toMatch(
      /env\.mixture\.1\.id: unknown env "mase"; known: .*maze/,
    );
    expect(problems(mixture([corridor, { ...keyDoor, weight: 0 }]))).toContain(
      'env.mixture.1.weight: must be above 0 (got 0)',
    );
    expect(problems(mixture([corridor, { ...keyDoor, weight: -1 }]))).toContain('must be above 0 (got -1)');
    expect(problems(mixture([corridor, { ...corridor, weight: 1 }]))).toContain(
      'env.mixture.1.id: env "testkit/corridor" appears twice',
    );
    expect(problems(mixture([corridor]))).toContain('env.mixture: a mixture needs at least two envs');
    expect(problems(mixture([corridor, { id: 'testkit/key-door' }]))).toContain('env.mixture.1.weight');
  });

  it('names misplaced keys in either form', () => {
    expect(problems(mixture([corridor, { ...keyDoor, weigth: 1 }]))).toContain(
      'env.mixture.1: unknown key "weigth"',
    );
    expect(problems(mixture([corridor, { ...keyDoor, agent: { paradgm: 'react' } }]))).toContain(
      'env.mixture.1.agent: unknown key "paradgm"',
    );
    expect(problems({ ...minimal, env: { id: 'alfworld', weight: 1 } })).toContain(
      'env: unknown key "weight"',
    );
    expect(problems({ ...minimal, env: { id: 'alfworld', mixture: [corridor, keyDoor] } })).toContain(
      'env: unknown key "id"',
    );
  });

  it("checks each env's agent, naming the env", () => {
    const planned = {
      agent: { paradigm: 'adaplan', actionSpace: 'choice', plan: 'steps' },
      stages: [
        { ...minimal.stages[0], kind: 'follow', rewards: { outcome: 1 }, algorithm: 'expert-iteration' },
      ],
      sft: { demonstrations: 2, steps: 2, learningRate: 1e-3 },
    };
    // A ReAct env of the mixture needs the plan steps off; then it plays stage 1 without plans.
    expect(problems(mixture([corridor, { ...keyDoor, agent: { paradigm: 'react' } }], planned))).toContain(
      'agent.plan: env "testkit/key-door": plan steps are AdaPlan plans',
    );
    expect(() =>
      parseConfig(
        mixture([corridor, { ...keyDoor, agent: { paradigm: 'react', plan: 'free-text' } }], planned),
      ),
    ).not.toThrow();
    expect(
      problems(
        mixture(
          [
            { ...corridor, agent: { paradigm: 'react', plan: 'free-text' } },
            { ...keyDoor, agent: { paradigm: 'react', plan: 'free-text' } },
          ],
          planned,
        ),
      ),
    ).toContain('stage "follow" trains plans, but agent.paradigm is "react" for every env');
  });

  it('bounds the rollout memory by the longest episodes of the mixture', () => {
    const huge = { ...minimal.stages[0], tasksPerIteration: 100000, groupSize: 64 };
    expect(problems(mixture([corridor, { ...keyDoor, maxSteps: 1000 }], { stages: [huge] }))).toContain(
      'env.maxSteps 1000',
    );
  });
});
