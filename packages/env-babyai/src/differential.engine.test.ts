// Differential test of the engine (the Minigrid port below the text layer) against the original:
// Minigrid v2.3.1 from PyPI, stepped by reference/drive-minigrid.py. All 40 of AgentGym's levels
// (KeyInBox's key in a box and PutNextS7N4Carrying's load included) × 6 fresh seeds, 30 seeded random
// primitive actions each; after reset and after every action the agent,
// the carried object, the whole grid, the 7×7 observation image, the mission, reward, terminated and
// truncated must be the same. The AgentGym text on top is checked by the fixture replays
// (test/replay.test.ts). Needs the venv of reference/setup.sh: skipped loudly without it, failing
// without it when CI is set.
import { createRng } from '@pilotrl/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { referenceSuite } from '../../../tooling/reference-suite';
import {
  driveMinigrid,
  type MinigridEpisode,
  type MinigridState,
  type PrimitiveName,
  referenceInstalled,
  referenceSetupCommand,
  referenceVenv,
} from '../reference/client';
import { Game, VIEW_SIZE } from './game';
import { parseLevelState } from './level';
import { AGENTGYM_LEVELS } from './splits';
import { encodeObject, PRIMITIVES, type WorldObject } from './world';

const reference = referenceSuite(
  'the BabyAI differential test of the engine against Minigrid v2.3.1',
  referenceInstalled(),
  referenceSetupCommand,
  'PyPI, a minute',
);

const SEEDS = [1000, 1001, 1002, 1003, 1004, 1005];
const ACTIONS_PER_LEVEL = 30;
/** Forward three times as often as the rest, so the agent gets around and meets objects and doors. */
const ACTION_POOL: readonly PrimitiveName[] = [
  'left',
  'right',
  'forward',
  'forward',
  'forward',
  'pickup',
  'drop',
  'toggle',
  'done',
];

const cellCode = (o: WorldObject | null) => (o === null ? '100' : encodeObject(o).join(''));

/** Our engine's state in the driver's shape (see reference/drive-minigrid.py). */
function stateOf(
  game: Game,
  action: PrimitiveName | null,
  outcome: { reward: number; terminated: boolean; truncated: boolean },
): MinigridState {
  const grid: string[] = [];
  for (let y = 0; y < game.grid.height; y++) {
    const row: string[] = [];
    for (let x = 0; x < game.grid.width; x++) row.push(cellCode(game.grid.get(x, y)));
    grid.push(row.join(' '));
  }
  // After reset: the observation Minigrid's reset returned (a load taken from its cell after it).
  const pixels = action === null ? game.resetImage() : game.image();
  const image: string[] = [];
  for (let j = 0; j < VIEW_SIZE; j++) {
    const row: string[] = [];
    for (let i = 0; i < VIEW_SIZE; i++)
      row.push(pixels.subarray((i * VIEW_SIZE + j) * 3, (i * VIEW_SIZE + j + 1) * 3).join(''));
    image.push(row.join(' '));
  }
  return {
    action,
    agent_pos: [game.agentPos[0], game.agentPos[1]],
    agent_dir: game.agentDir,
    carrying: game.carrying === null ? null : encodeObject(game.carrying),
    grid,
    image,
    mission: game.level.mission,
    ...outcome,
  };
}

/** The fields in which two states differ. */
function differences(ours: MinigridState, theirs: MinigridState): string[] {
  return (Object.keys(theirs) as (keyof MinigridState)[]).filter(
    (field) => JSON.stringify(ours[field]) !== JSON.stringify(theirs[field]),
  );
}

describe.skipIf(!reference.run)('differential: the engine against Minigrid v2.3.1', () => {
  let episodes: MinigridEpisode[] = [];
  beforeAll(async () => {
    if (!referenceInstalled()) {
      throw new Error(
        `CI is set but the reference is missing at ${referenceVenv}: run ${referenceSetupCommand}`,
      );
    }
    const levels = AGENTGYM_LEVELS;
    episodes = await driveMinigrid(
      levels.flatMap((level) =>
        SEEDS.map((seed) => {
          const rng = createRng(`${level}/${seed}`);
          const actions = Array.from({ length: ACTIONS_PER_LEVEL }, () => rng.pick(ACTION_POOL));
          return { id: `${level}/${seed}`, level, seed, actions };
        }),
      ),
    );
  }, 300_000);

  it('has the same state after reset and after each of 30 random primitive actions, on 240 levels', () => {
    const mismatches: string[] = [];
    let compared = 0;
    let actions = 0;
    for (const episode of episodes) {
      expect(episode.unsupported, episode.id).toEqual([]);
      const game = new Game(parseLevelState(episode.start, episode.id));
      for (const [k, theirs] of episode.states.entries()) {
        const action = theirs.action as PrimitiveName | null;
        const outcome =
          action === null
            ? { reward: 0, terminated: false, truncated: false }
            : game.step(PRIMITIVES[action]);
        if (action !== null) actions += 1;
        compared += 1;
        const fields = differences(stateOf(game, action, outcome), theirs);
        if (fields.length > 0) {
          mismatches.push(`${episode.id} state ${k} after ${action}: ${fields.join(', ')}`);
          break;
        }
      }
    }
    console.log(
      `babyai differential: ${episodes.length} levels, ${actions} primitive actions, ${compared} states compared, ${mismatches.length} mismatches`,
    );
    expect(mismatches).toEqual([]);
    expect(episodes.length).toBeGreaterThanOrEqual(200);
    expect(actions).toBe(episodes.length * ACTIONS_PER_LEVEL);
  });
});
