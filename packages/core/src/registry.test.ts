import { describe, expect, it } from 'vitest';
import { NotFoundError } from './errors';
import { createRegistry } from './registry';

describe('createRegistry', () => {
  it('stores and lists entries by id', () => {
    const registry = createRegistry<number>('estimator');
    registry.register('grpo', 1);
    registry.register('rloo', 2);
    expect(registry.get('rloo')).toBe(2);
    expect(registry.has('grpo')).toBe(true);
    expect(registry.ids()).toEqual(['grpo', 'rloo']);
  });

  it('names the known ids when an id is missing', () => {
    const registry = createRegistry<number>('estimator');
    registry.register('grpo', 1);
    expect(() => registry.get('ppo')).toThrow(NotFoundError);
    expect(() => registry.get('ppo')).toThrow('Unknown estimator "ppo". Known: grpo');
  });

  it('says how to add an id when it has a hint', () => {
    const registry = createRegistry<number>('estimator', { unknownHint: 'Register it first' });
    expect(() => registry.get('ppo')).toThrow(
      'Unknown estimator "ppo". Known: (none registered). Register it first',
    );
  });

  it('refuses duplicates unless asked to replace, and bad ids', () => {
    const registry = createRegistry<number>('loss');
    registry.register('ppo', 1);
    expect(() => registry.register('ppo', 2)).toThrow(/already registered/);
    registry.register('ppo', 3, { replace: true });
    expect(registry.get('ppo')).toBe(3);
    expect(() => registry.register('has space', 1)).toThrow(/must be letters/);
  });
});
