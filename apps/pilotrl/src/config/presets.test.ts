import { describe, expect, it } from 'vitest';
import { presetConfig } from './presets';

describe('the paper-ppo preset', () => {
  it('is the paper curriculum with a value head and GAE advantages in every stage', () => {
    const paper = presetConfig('paper');
    const ppo = presetConfig('paper-ppo');
    expect(ppo.policy.valueHead).toBe(true);
    expect(paper.policy.valueHead).toBe(false);
    expect({ ...ppo.policy, valueHead: false }).toEqual(paper.policy);
    expect(ppo.agent).toEqual(paper.agent);
    expect(ppo.sft).toEqual(paper.sft);
    expect(ppo.stages.map((stage) => stage.kind)).toEqual(['follow', 'plan', 'joint']);
    ppo.stages.forEach((stage, s) => {
      expect(stage).toMatchObject({
        algorithm: 'policy-gradient',
        estimator: 'gae',
        epochs: 2,
        minibatches: 4,
      });
      expect(stage.loss).toEqual(paper.stages[s]!.loss);
      expect(stage.rewards).toEqual(paper.stages[s]!.rewards);
      // As many episodes per iteration as the paper's GRPO, over four times as many tasks.
      expect(stage.tasksPerIteration * stage.groupSize).toBe(
        paper.stages[s]!.tasksPerIteration * paper.stages[s]!.groupSize,
      );
    });
  });
});
