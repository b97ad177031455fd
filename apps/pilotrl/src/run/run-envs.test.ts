import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/curriculum-config';
import { presets } from '../config/presets';
import { runEnvsFor } from './run-envs';

describe('runEnvsFor', () => {
  it("gives the env's provider the step limit its envs play by, so the oracle plans within it", async () => {
    const preset = presets['babyai-quick']!;
    const withLimit = (maxSteps: number) =>
      runEnvsFor(parseConfig({ ...preset, env: { ...preset.env, maxSteps } }, 'test'))[0]!;
    const { tasks } = withLimit(40).provider;
    const [task] = await tasks.tasks('valid_seen', { offset: 0, limit: 1 });
    const solution = await tasks.oracle!(task!);
    expect(solution.actions.length).toBeGreaterThan(2);
    expect(solution.actions.length).toBeLessThanOrEqual(40);
    // The same task under a limit shorter than its solution: the oracle says it finds no win within it.
    await expect(withLimit(2).provider.tasks.oracle!(task!)).rejects.toThrow(
      'finds no win of "valid_seen-0" within 2 primitive commands',
    );
  });
});
