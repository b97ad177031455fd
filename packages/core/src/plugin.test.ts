import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TextEnv } from './env';
import { InvalidArgumentError, UnsolvableTaskError } from './errors';
import {
  createEnvProvider,
  definePlugin,
  type EnvDescriptor,
  optionsKnownTo,
  withCachedOracle,
} from './plugin';
import type { TaskRef, TaskSource } from './task';

const tasks: TaskSource = {
  envId: 'guess',
  splits: () => ['train'],
  count: () => 1,
  tasks: async () => [{ taskId: 't0', split: 'train', seed: 0 }],
};
const env = { envId: 'guess' } as TextEnv;
const guess: EnvDescriptor = {
  id: 'guess',
  create: (options) => ({ envId: 'guess', createEnv: () => env, tasks, ...options }),
};

describe('definePlugin', () => {
  it('returns the plug-in frozen, its envs in order, every list present', () => {
    const plugin = definePlugin({ name: '@someone/env-guess', envs: [guess] });
    expect(plugin.envs.map((descriptor) => descriptor.id)).toEqual(['guess']);
    expect(plugin.estimators).toEqual([]);
    expect(Object.isFrozen(plugin) && Object.isFrozen(plugin.envs)).toBe(true);
  });

  it('names the field that is wrong', () => {
    const notAPlugin = (value: unknown) => () => definePlugin(value as never);
    expect(notAPlugin({ envs: [] })).toThrow(/plugin\.name must name the plug-in/);
    expect(notAPlugin({ name: 'p', envs: [{ id: 'has space', create: () => ({}) }] })).toThrow(
      /plug-in "p" is not a PilotRL plug-in: plugin\.envs\.0\.id must be letters/,
    );
    expect(notAPlugin({ name: 'p', envs: [{ id: 'x', create: 'no' }] })).toThrow(
      /plugin\.envs\.0\.create must be a function/,
    );
    expect(notAPlugin(undefined)).toThrow(InvalidArgumentError);
    expect(notAPlugin({ name: 'p', envs: [guess, guess] })).toThrow('plug-in "p" offers env "guess" twice');
    expect(notAPlugin({ name: 'p' })).toThrow(
      'plugin.envs offers nothing: give envs, estimators, rewards, judges or policy backends',
    );
    expect(
      notAPlugin({
        name: 'p',
        estimators: [{ id: 'mine', optionsSchema: {}, requires: [], create: () => 1 }],
      }),
    ).toThrow('plugin.estimators.0.optionsSchema must be a zod schema of the options');
    expect(
      notAPlugin({
        name: 'p',
        estimators: [{ id: 'mine', optionsSchema: z.object({}), requires: ['gpu'], create: () => 1 }],
      }),
    ).toThrow(/plugin\.estimators\.0\.requires\.0 /);
  });
});

describe('createEnvProvider', () => {
  it('returns the provider a descriptor creates', () => {
    expect(createEnvProvider(guess, {}).createEnv({})).toBe(env);
  });

  it('refuses a provider without a task source, or for another env, naming plug-in and env', () => {
    const broken: EnvDescriptor = {
      id: 'guess',
      create: () => ({ envId: 'guess', createEnv: () => env }) as never,
    };
    expect(() => createEnvProvider(broken, {}, '@someone/env-guess')).toThrow(
      /^@someone\/env-guess: env "guess": create\(\) must return an EnvProvider .*provider\.tasks/,
    );
    const other: EnvDescriptor = {
      id: 'guess',
      create: () => ({ envId: 'maze', createEnv: () => env, tasks }),
    };
    expect(() => createEnvProvider(other, {})).toThrow(
      'returned a provider for env "maze"; its envId must be "guess"',
    );
  });
});

describe('withCachedOracle', () => {
  it('asks the oracle once per task, and again after a failure that is not unsolvability', async () => {
    const asked: string[] = [];
    let failNext = true;
    const source = withCachedOracle({
      ...tasks,
      async oracle(task: TaskRef) {
        asked.push(task.taskId);
        if (task.taskId === 'flaky' && failNext) {
          failNext = false;
          throw new Error('busy');
        }
        if (task.taskId === 'unsolvable') throw new UnsolvableTaskError('no way');
        return { actions: ['go'], plan: ['Go.'] };
      },
    });
    const ref = (taskId: string): TaskRef => ({ taskId, split: 'train', seed: 0 });
    await source.oracle!(ref('a'));
    await source.oracle!(ref('a'));
    await expect(source.oracle!(ref('flaky'))).rejects.toThrow('busy');
    await source.oracle!(ref('flaky'));
    await expect(source.oracle!(ref('unsolvable'))).rejects.toThrow('no way');
    await expect(source.oracle!(ref('unsolvable'))).rejects.toThrow('no way');
    expect(asked).toEqual(['a', 'flaky', 'flaky', 'unsolvable']);
  });
});

describe('optionsKnownTo', () => {
  it('keeps the keys an object schema knows', () => {
    expect(optionsKnownTo({ shape: { recipesDir: 1 } }, { recipesDir: 'r', maxSteps: 3 })).toEqual({
      recipesDir: 'r',
    });
  });
});
