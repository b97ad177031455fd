// An expert-iteration stage: each iteration's rollout, each group's win replayed without its
// detours or (hindsight) the goal a lost group reached, rendered as the agent's own prompts (a
// plan-step agent's with the plan of the replayed commands, written or provided as the stage has
// it), then SFT on them mixed with the warm start's demonstrations.
import { createVectorEnv, relabelEpisodes, replayScripts } from '@pilotrl/agent';
import { createExpertIteration } from '@pilotrl/optim';
import { sftDatum, sftStep } from '@pilotrl/policy-tfjs';
import type { Phase } from './phase-plan';
import type { PhaseRunner, RunContext } from './phase-runner';
import { demonstrationsFor, envOptionsFor } from './runtime';
import { demonstrationDatum } from './sft-phase';
import { createStageRollouts, stageMetrics } from './stage-rollout';

export async function expertIterationRunner(context: RunContext, phase: Phase): Promise<PhaseRunner> {
  const { config, provider, policy } = context;
  const stage = phase.stage!;
  const settings = stage.expertIteration;
  const rollouts = createStageRollouts(context, phase);
  const replayEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), { size: 1 });
  const relabelEnv = provider.createEnv(envOptionsFor(config));
  const demonstrations =
    settings.mix < 1 && config.sft !== undefined
      ? (
          await demonstrationsFor(config, provider, config.sft.demonstrations, policy.sampler())
        ).demonstrations.map((demo) => demonstrationDatum(policy, demo))
      : [];
  const iteration = createExpertIteration(
    {
      sftSteps: settings.sftSteps,
      batchSize: settings.batchSize,
      mix: settings.mix,
      learningRate: stage.learningRate,
      seed: config.seed,
    },
    sftStep,
  );
  return {
    async iterate(rng, index) {
      const played = await rollouts.play(rng, index);
      const { agent, episodes } = played;
      // The rollout's rewards are recorded (and the plan stage's judge score reported); what is kept is the wins and the goals reached.
      const { scripts, ...report } = await relabelEpisodes(episodes, {
        env: relabelEnv,
        ...(settings.hindsight && provider.hindsight !== undefined ? { hindsight: provider.hindsight } : {}),
        rng,
      });
      const replays = await replayScripts(agent, replayEnv, provider.envId, scripts);
      const datums = (source: 'shortcut' | 'hindsight') =>
        replays
          .filter((_, i) => scripts[i]!.source === source)
          .flatMap((replay) => replay.examples)
          .map((example) => sftDatum(policy.tokenizer, example));
      const { metrics } = await iteration.step(policy, {
        kept: { won: datums('shortcut'), hindsight: datums('hindsight') },
        demonstrations,
      });
      return {
        metrics: stageMetrics(played, {
          ...metrics,
          'expert_iteration/groups_won': report.wonGroups,
          'expert_iteration/groups_relabelled': report.hindsightGroups,
          'expert_iteration/groups_unreached': report.unreachedGroups,
          'expert_iteration/goals_unreplayable': report.unreplayableGoals,
          'charts/updated': 1,
        }),
        episodes,
      };
    },
    exportState: () => iteration.exportState(),
    importState: (state) => iteration.importState(state as Parameters<typeof iteration.importState>[0]),
    async close() {
      await rollouts.close();
      await replayEnv.close();
      await relabelEnv.close?.();
    },
  };
}
