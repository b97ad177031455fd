// Expert iteration imitates what the stage's reward prefers: the same episodes scored under other
// reward weights give other kept episodes and weights.
import { createRandomPolicy, createVectorEnv, rollout } from '@pilotrl/agent';
import type { Episode } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { envCurricula, parseConfig } from '../config/curriculum-config';
import { runEnvOf } from '../run/run-envs';
import { agentOptionsFor, createAgent } from '../run/run-setup';
import { oneJointStage } from '../tiny-corridor.testing';
import { preferredEpisodes } from './expert-iteration-phase';
import { createStageScorer } from './stage-rewards';

const configWith = (rewards: Record<string, number>) =>
  envCurricula(
    parseConfig({
      env: { id: 'testkit/corridor', maxSteps: 12 },
      // The random policy's tokens are bytes: a prompt needs room for a few thousand.
      policy: { contextLength: 4096 },
      agent: { paradigm: 'react', prompt: 'view', actionSpace: 'choice' },
      stages: [
        {
          ...oneJointStage,
          algorithm: 'expert-iteration',
          expertIteration: { mix: 1 },
          groupSize: 16,
          rewards,
        },
      ],
    }),
  )[0]!.config;

async function playRandomly(): Promise<Episode[]> {
  const config = configWith({ outcome: 1 });
  const env = runEnvOf(config);
  const { provider } = env;
  const agent = createAgent(
    config,
    createRandomPolicy({ seed: 3 }),
    agentOptionsFor(config, { provider, temperature: 1 }),
  );
  const vectorEnv = createVectorEnv(env.createEnv, { size: 64 });
  const tasks = await provider.tasks.tasks('train', { limit: 8 });
  const episodes = await rollout(agent, vectorEnv, { envId: provider.envId, tasks, groupSize: 8, seed: 7 });
  await vectorEnv.close();
  return episodes;
}

async function keptUnder(rewards: Record<string, number>, played: readonly Episode[]) {
  const config = configWith(rewards);
  const stage = config.stages[0]!;
  const episodes = structuredClone(played) as Episode[];
  await createStageScorer(config, stage, runEnvOf(config).provider).score(episodes);
  return preferredEpisodes(stage, episodes).map(({ episode, weight }) => ({ id: episode.id, weight }));
}

describe("expert iteration's choice of episodes", () => {
  it("changes with the stage's reward weights", async () => {
    const played = await playRandomly();
    const wins = played.filter((episode) => episode.won);
    expect(wins.length).toBeGreaterThan(1);
    expect(wins.length).toBeLessThan(played.length);

    // The outcome alone keeps every win, each at weight 1.
    const byOutcome = await keptUnder({ outcome: 1 }, played);
    expect(byOutcome).toEqual(wins.map((episode) => ({ id: episode.id, weight: 1 })));

    // Charging each command repeated back to back prefers, among the wins of a task, those with
    // fewer repeats: the weights follow the penalty.
    const byRepeats = await keptUnder({ outcome: 1, repeated_action: 0.2 }, played);
    expect(byRepeats).not.toEqual(byOutcome);
    const episodeOf = (id: string) => played.find((episode) => episode.id === id)!;
    const repeats = (id: string) => {
      const { turns } = episodeOf(id);
      return turns.filter((turn, t) => t > 0 && turn.action === turns[t - 1]!.action).length;
    };
    let compared = 0;
    for (const a of byRepeats) {
      for (const b of byRepeats) {
        if (episodeOf(a.id).groupId === episodeOf(b.id).groupId && repeats(a.id) < repeats(b.id)) {
          expect(a.weight).toBeGreaterThan(b.weight);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(0);
  });
});
