// Hand-built episode records for tests of what reads episodes (rewards, relabelling, reports):
// every field filled with a plain default, the ones a test cares about given.
import {
  EPISODE_FORMAT_VERSION,
  type Episode,
  type Generation,
  type PlanRevision,
  type Turn,
} from '@pilotrl/core';

/** A generation with `promptTokens` env tokens followed by `modelTokens` model tokens. */
export function generationRecord(
  modelTokens: number,
  promptTokens = 3,
  kind: Generation['kind'] = 'act',
): Generation {
  const length = promptTokens + modelTokens;
  return {
    kind,
    text: 'x'.repeat(modelTokens),
    tokenIds: Array.from({ length }, (_, index) => index % 50),
    lossMask: Array.from({ length }, (_, index) => (index < promptTokens ? 0 : 1)),
    logprobs: Array.from({ length }, (_, index) => (index < promptTokens ? 0 : -0.5)),
    policyVersion: 0,
    finishReason: 'stop',
  };
}

export function turnRecord(index: number, action: string | null, fields: Partial<Turn> = {}): Turn {
  return {
    index,
    observation: `observation ${index}`,
    admissibleActions: [],
    generations: [generationRecord(5)],
    thought: null,
    action,
    formatError: action === null ? 'no <action> tag' : null,
    envReward: 0,
    valid: action !== null,
    rewards: {},
    ...fields,
  };
}

/** An episode whose turns play `actions` in order (null = a format error). */
export function episodeRecord(actions: readonly (string | null)[], fields: Partial<Episode> = {}): Episode {
  return {
    formatVersion: EPISODE_FORMAT_VERSION,
    id: 'episode-1',
    envId: 'testkit/recipe',
    taskId: 'task-1',
    split: 'train',
    seed: 7,
    groupId: 'group-1',
    sampleIndex: 0,
    paradigm: 'adaplan',
    task: 'Make a salad of tomato and onion.',
    initialObservation: 'The pantry holds a tomato, an onion and a carrot. There is a bowl.',
    turns: actions.map((action, index) => turnRecord(index, action)),
    planHistory: [],
    won: false,
    terminated: false,
    truncated: false,
    envReturn: 0,
    rewardComponents: {},
    metadata: {},
    ...fields,
  };
}

export function planRevision(
  steps: string[],
  source: PlanRevision['source'] = 'external',
  turnIndex = 0,
): PlanRevision {
  return { turn: turnIndex, steps, source, fixedSteps: 0 };
}
