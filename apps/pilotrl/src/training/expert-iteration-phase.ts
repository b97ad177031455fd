// An expert-iteration stage: each iteration's rollout, each group's win replayed without its
// detours or (hindsight) the goal a lost group reached, rendered as the agent's own prompts (a
// plan-step agent's with the plan of the replayed commands, written or provided as the stage has
// it), then SFT on them mixed with the warm start's demonstrations.
import { createVectorEnv, relabelEpisodes } from '@pilotrl/agent';
import type { Datum } from '@pilotrl/core';
import { createExpertIteration, sftStep } from '@pilotrl/optim';
import { envOptionsFor, runDemonstrations } from '../run/run-setup';
import { replayWhole } from './demonstrations';
import type { Phase } from './phase-plan';
import type { PhaseRunner, RunContext } from './phase-runner';
import { demonstrationDatum } from './sft-phase';
import { createStageRollouts, stageMetrics } from './stage-rollout';

export async function expertIterationRunner(context: RunContext, phase: Phase): Promise<PhaseRunner> {
  const { config, envs, policy } = context;
  const stage = phase.stage!;
  const settings = stage.expertIteration;
  const rollouts = createStageRollouts(context, phase);
  const replayers = new Map(
    envs.map((env) => [
      env,
      {
        replayEnv: createVectorEnv(() => env.provider.createEnv(envOptionsFor(env.config)), { size: 1 }),
        relabelEnv: env.provider.createEnv(envOptionsFor(env.config)),
      },
    ]),
  );
  const demonstrations =
    settings.mix < 1 && config.sft !== undefined
      ? (await runDemonstrations(envs, config.sft.demonstrations, policy.sampler()))
          .flatMap((env) => env.demonstrations)
          .map((demo) => demonstrationDatum(policy, demo))
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
      const kept = { won: [] as Datum[], hindsight: [] as Datum[] };
      const report = {
        wonGroups: 0,
        hindsightGroups: 0,
        unreachedGroups: 0,
        unreplayableGoals: 0,
        cutShort: 0,
      };
      // Each env's groups are relabelled and replayed by its own env and agent.
      for (const { env, agent, episodes } of played.played) {
        const { replayEnv, relabelEnv } = replayers.get(env)!;
        // The rollout's rewards are recorded (and the plan stage's judge score reported); what is kept is the wins and the goals reached.
        const { scripts, ...relabelled } = await relabelEpisodes(episodes, {
          env: relabelEnv,
          ...(settings.hindsight && env.provider.hindsight !== undefined
            ? { hindsight: env.provider.hindsight }
            : {}),
          rng,
        });
        for (const script of scripts) {
          const replay = await replayWhole(agent, replayEnv, env.provider.envId, script);
          // A game the agent's context cannot hold to its end would teach a cut-off game.
          if (replay === undefined) {
            report.cutShort++;
            continue;
          }
          const datums = replay.examples.map((example) => policy.replyDatum(example));
          kept[script.source === 'shortcut' ? 'won' : 'hindsight'].push(...datums);
        }
        report.wonGroups += relabelled.wonGroups;
        report.hindsightGroups += relabelled.hindsightGroups;
        report.unreachedGroups += relabelled.unreachedGroups;
        report.unreplayableGoals += relabelled.unreplayableGoals;
      }
      const { metrics } = await iteration.step(policy, { kept, demonstrations });
      return {
        metrics: stageMetrics(played, {
          ...metrics,
          'expert_iteration/groups_won': report.wonGroups,
          'expert_iteration/groups_relabelled': report.hindsightGroups,
          'expert_iteration/groups_unreached': report.unreachedGroups,
          'expert_iteration/goals_unreplayable': report.unreplayableGoals,
          'expert_iteration/replays_cut_short': report.cutShort,
          'charts/updated': 1,
        }),
        episodes: played.episodes,
      };
    },
    exportState: () => iteration.exportState(),
    importState: (state) => iteration.importState(state as Parameters<typeof iteration.importState>[0]),
    async close() {
      await rollouts.close();
      for (const { replayEnv, relabelEnv } of replayers.values()) {
        await replayEnv.close();
        await relabelEnv.close?.();
      }
    },
  };
}
