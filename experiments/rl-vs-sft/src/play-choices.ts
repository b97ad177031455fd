// The experiment plays through the library's rollout engine: a ReAct agent in
// the `choice` action space (every action one of the env's admissible commands, its logprob exact)
// that sees a state view instead of a conversation, and a win is reward 1.
import { type Agent, createReActAgent, createVectorEnv, rollout } from '@pilotrl/agent';
import {
  type Episode,
  type EpisodeViewFactory,
  latestObservationView,
  type Policy,
  type TaskRef,
  type TextEnv,
} from '@pilotrl/core';
import { composeRewards, createOutcomeReward } from '@pilotrl/rewards';

export interface PlayChoicesOptions {
  envId: string;
  createEnv: () => TextEnv;
  /** Each task is played `groupSize` times (one group). */
  tasks: readonly TaskRef[];
  groupSize: number;
  /** Base of the sampling seeds. */
  seed: number;
  /** Sampling temperature; 0 is greedy. */
  temperature?: number;
  /** By default the goal and the latest observation. */
  view?: EpisodeViewFactory;
  /** Turns before an episode is cut; envs with a step limit of their own end sooner. */
  maxTurns?: number;
  /** The policy's context window in tokens. */
  contextTokens?: number;
}

const outcome = composeRewards([{ fn: createOutcomeReward(), weight: 1 }]);

/** The agent that plays (and renders scripts) with these options. */
export function choiceAgent(
  policy: Policy,
  options: Pick<PlayChoicesOptions, 'temperature' | 'view' | 'maxTurns' | 'contextTokens'>,
): Agent {
  return createReActAgent(policy, {
    actionSpace: 'choice',
    view: options.view ?? latestObservationView,
    maxTurns: options.maxTurns ?? 100,
    contextTokens: options.contextTokens ?? 512,
    act: { maxTokens: 16, temperature: options.temperature ?? 1 },
  });
}

/** Plays every task `groupSize` times in lock step; each episode's reward is 1 for a win, else 0. */
export async function playChoices(policy: Policy, options: PlayChoicesOptions): Promise<Episode[]> {
  const agent = choiceAgent(policy, options);
  const vectorEnv = createVectorEnv(options.createEnv, { size: options.tasks.length * options.groupSize });
  try {
    const episodes = await rollout(agent, vectorEnv, {
      envId: options.envId,
      tasks: [...options.tasks],
      groupSize: options.groupSize,
      seed: options.seed,
    });
    return outcome.applyAll(episodes);
  } finally {
    await vectorEnv.close();
  }
}
