// An expert-iteration stage: each iteration's rollout, scored with the stage's rewards; the
// episodes the stage reward prefers are kept, each weighted by how far it beats the others of its
// task (or, with one sample per task, of the iteration): a win replayed without its detours under
// the plan it was played with, rendered as the agent's own prompts. Lost groups may add the goal
// they reached (hindsight). Then SFT on them mixed with the warm start's demonstrations.
import { createVectorEnv, relabelEpisodes, winScript } from '@pilotrl/agent';
import type { Datum, Episode } from '@pilotrl/core';
import {
  createExpertIteration,
  episodeDatums,
  selectByReward,
  sftStep,
  type WeightedEpisode,
} from '@pilotrl/optim';
import type { StageConfig } from '../config/curriculum-config';
import { runDemonstrations } from '../run/run-setup';
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
        replayEnv: createVectorEnv(env.createEnv, { size: 1 }),
        relabelEnv: env.createEnv(),
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
      const kept = { own: [] as Datum[], hindsight: [] as Datum[] };
      const report = {
        keptEpisodes: 0,
        keptWeight: 0,
        hindsightGroups: 0,
        unreachedGroups: 0,
        unreplayableGoals: 0,
        cutShort: 0,
      };
      for (const { env, agent, episodes } of played.played) {
        const { replayEnv, relabelEnv } = replayers.get(env)!;
        // The stage reward decides what is imitated and how much: the plan stage learns from its
        // judged plans. A kept win is replayed without its detours under the plan it was played
        // with; a kept loss (a plan the reward still prefers) teaches its plan, never its commands.
        for (const chosen of preferredEpisodes(stage, episodes)) {
          report.keptEpisodes++;
          report.keptWeight += chosen.weight;
          if (!chosen.episode.won) {
            kept.own.push(...episodeDatums(chosen, ['plan']));
            continue;
          }
          const script = await winScript(chosen.episode, relabelEnv);
          const replay = await replayWhole(agent, replayEnv, env.provider.envId, script);
          // A game the agent's context cannot hold to its end would teach a cut-off game.
          if (replay === undefined) {
            report.cutShort++;
            continue;
          }
          for (const example of replay.examples) {
            const datum = policy.replyDatum(example);
            kept.own.push({ ...datum, weights: datum.weights.map((w) => w * chosen.weight) });
          }
        }
        if (!settings.hindsight || env.provider.hindsight === undefined) continue;
        // Groups without a win learn, by the env's own relabeller, the goal they did reach.
        const { scripts, ...relabelled } = await relabelEpisodes(lostGroups(episodes), {
          env: relabelEnv,
          hindsight: env.provider.hindsight,
          rng,
        });
        for (const script of scripts) {
          const replay = await replayWhole(agent, replayEnv, env.provider.envId, script);
          // A game the agent's context cannot hold to its end would teach a cut-off game.
          if (replay === undefined) {
            report.cutShort++;
            continue;
          }
          kept.hindsight.push(...replay.examples.map((example) => policy.replyDatum(example)));
        }
        report.hindsightGroups += relabelled.hindsightGroups;
        report.unreachedGroups += relabelled.unreachedGroups;
        report.unreplayableGoals += relabelled.unreplayableGoals;
      }
      const { metrics } = await iteration.step(policy, { kept, demonstrations });
      return {
        metrics: stageMetrics(played, {
          ...metrics,
          'expert_iteration/episodes_kept': report.keptEpisodes,
          'expert_iteration/kept_weight_mean':
            report.keptEpisodes === 0 ? 0 : report.keptWeight / report.keptEpisodes,
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

/**
 * The episodes a stage's reward prefers, weighted: compared with the other samples of their task,
 * or, where each task is played once, with the iteration's other episodes.
 */
export function preferredEpisodes(stage: StageConfig, episodes: readonly Episode[]): WeightedEpisode[] {
  return selectByReward(episodes, { within: stage.groupSize > 1 ? 'groups' : 'batch' });
}

/** The episodes of the groups none of whose samples won. */
function lostGroups(episodes: readonly Episode[]): Episode[] {
  const won = new Set(episodes.filter((episode) => episode.won).map((episode) => episode.groupId));
  return episodes.filter((episode) => !won.has(episode.groupId));
}
