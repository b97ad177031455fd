// A policy-gradient stage: each iteration's rollout, then one update of the configured estimator
// (GRPO, RLOO, ...) and the PPO-style clipped loss, with a KL term towards the weights the stage
// started from where `loss.klCoef` asks for one.
import { createUpdateStep, type UpdateStep } from '@pilotrl/optim';
import type { Phase } from './phase-plan';
import type { PhaseRunner, RunContext } from './phase-runner';
import { createStageRollouts, stageMetrics } from './stage-rollout';

export async function policyGradientRunner(context: RunContext, phase: Phase): Promise<PhaseRunner> {
  const { config, policy } = context;
  const stage = phase.stage!;
  const rollouts = createStageRollouts(context, phase);
  const update: UpdateStep = createUpdateStep({
    estimator: stage.estimator,
    estimatorArgs: stage.estimatorOptions,
    loss: 'ppo',
    lossArgs: {
      clipLow: stage.loss.clipLow,
      clipHigh: stage.loss.clipHigh,
      dualClip: stage.loss.dualClip,
      klCoef: stage.loss.klCoef,
      klEstimator: stage.loss.klEstimator,
    },
    aggregation: stage.loss.aggregation,
    epochs: stage.epochs,
    minibatches: stage.minibatches,
    entropyCoef: stage.loss.entropyCoef,
    adam: { learningRate: stage.learningRate, gradClipNorm: stage.gradClipNorm },
    seed: config.seed,
  });
  // A KL term needs the weights the stage started from, frozen.
  const reference = stage.loss.klCoef > 0 ? await policy.freeze() : undefined;
  return {
    async iterate(rng, iteration) {
      const played = await rollouts.play(rng, iteration);
      const result = await update(
        policy,
        played.episodes,
        reference === undefined ? {} : { reference: reference.policy },
      );
      return {
        metrics: stageMetrics(played, { ...result.metrics, 'charts/updated': result.updated ? 1 : 0 }),
        episodes: played.episodes,
      };
    },
    async close() {
      await rollouts.close();
      await reference?.dispose();
    },
  };
}
