// The benchmark's ALFWorld play, all of it through the library's agent loop: a ReAct agent in the
// `choice` action space with ALFWorld's compact state view, the oracle's demonstrations and the
// expert-iteration relabels rendered by replaying their commands through the same loop.
import { createVectorEnv, relabelEpisodes, replayScripts, type Script } from '@pilotrl/agent';
import type { Episode, Policy, Rng, TaskRef } from '@pilotrl/core';
import {
  ALFWORLD_ENV_ID,
  AlfworldEnv,
  alfworldHindsight,
  alfworldStateView,
  createGeneratedTaskSource,
} from '@pilotrl/env-alfworld';
import type { SftExample } from '@pilotrl/policy-tfjs';
import { choiceAgent, playChoices } from './play-choices';

export const taskSource = createGeneratedTaskSource();

const playing = (maxSteps: number, temperature = 1) => ({
  view: alfworldStateView,
  // The env's own step limit ends episodes; the agent's is one more so it never cuts first.
  maxTurns: maxSteps + 1,
  contextTokens: 512,
  temperature,
});

export interface PlayOptions {
  /** Each task is played `groupSize` times (one group). */
  groupSize: number;
  /** 0 plays greedily (the most likely whole command). */
  temperature: number;
  maxSteps: number;
  seed: number;
}

/** Plays every task `groupSize` times in lock step; reward 1 for a win. */
export function play(policy: Policy, tasks: readonly TaskRef[], options: PlayOptions): Promise<Episode[]> {
  return playChoices(policy, {
    envId: ALFWORLD_ENV_ID,
    createEnv: () => new AlfworldEnv({ maxSteps: options.maxSteps, cacheSize: 1 }),
    tasks,
    groupSize: options.groupSize,
    seed: options.seed,
    ...playing(options.maxSteps, options.temperature),
  });
}

/** Each script's (prompt, command) pairs as the bench's agent would have been shown them. */
async function render(scripts: readonly Script[], maxSteps: number): Promise<SftExample[][]> {
  const agent = choiceAgent({ name: 'script', version: 0, generate: async () => [] }, playing(maxSteps));
  const vectorEnv = createVectorEnv(() => new AlfworldEnv({ maxSteps, cacheSize: 4 }), { size: 1 });
  try {
    const replays = await replayScripts(agent, vectorEnv, ALFWORLD_ENV_ID, scripts);
    return replays.map((replay) => replay.examples);
  } finally {
    await vectorEnv.close();
  }
}

/** One (prompt, command) pair per step of the engine's oracle on each task (its first `maxSteps`). */
export async function demonstrations(tasks: readonly TaskRef[], maxSteps: number): Promise<SftExample[]> {
  const scripts: Script[] = [];
  for (const task of tasks) {
    const { actions } = await taskSource.oracle!(task);
    scripts.push({ task, commands: actions.slice(0, maxSteps), goal: null });
  }
  return (await render(scripts, maxSteps)).flat();
}

export interface SelfImprovementExamples {
  won: SftExample[];
  hindsight: SftExample[];
  report: Omit<Awaited<ReturnType<typeof relabelEpisodes>>, 'scripts'>;
}

/**
 * What expert iteration imitates from `episodes`: each won group's shortest shortcut, and each lost
 * group's shortest way to a goal it reached, stated as that goal (`hindsight`).
 */
export async function selfImprovementExamples(
  episodes: readonly Episode[],
  maxSteps: number,
  rng: Rng,
): Promise<SelfImprovementExamples> {
  const { scripts, ...report } = await relabelEpisodes(episodes, {
    env: new AlfworldEnv({ maxSteps, cacheSize: 4 }),
    hindsight: alfworldHindsight,
    rng,
  });
  const rendered = await render(scripts, maxSteps);
  scripts.forEach((script, i) => {
    if (script.source === 'shortcut' && rendered[i]!.length !== script.commands.length) {
      throw new Error(`the shortcut of ${script.task.taskId} did not replay in full`);
    }
  });
  return {
    won: rendered.filter((_, i) => scripts[i]!.source === 'shortcut').flat(),
    hindsight: rendered.filter((_, i) => scripts[i]!.source === 'hindsight').flat(),
    report,
  };
}
