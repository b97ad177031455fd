// A seeded generator of BabyAI start states beyond the shipped ones: the level families that the
// splits use, built by our own RoomGrid with Minigrid's rules and odds (level-families.ts). Not
// seed-exact with Minigrid: seed 3 of a family is a level of that family, not Minigrid's seed 3.
import { createRng, InvalidArgumentError } from '@pilotrl/core';
import { instrDataOf, missionOf } from './generated-instructions';
import { type LevelState, parseLevelState } from './level';
import { LEVEL_FAMILIES, maxStepsOf } from './level-families';
import { RoomGrid, SampleRejected } from './room-grid';
import { AGENTGYM_LEVELS } from './splits';
import { encodeObject } from './world';

/** The levels `generateLevel` makes, in AgentGym's level order. */
export const GENERATED_LEVELS: readonly string[] = AGENTGYM_LEVELS.filter((name) =>
  Object.hasOwn(LEVEL_FAMILIES, name),
);

/** Rejected samples are redrawn; no family comes near this many in a row. */
const MAX_SAMPLES = 10_000;

/** A start state of level family `levelName` (a Minigrid name), the same for the same seed. */
export function generateLevel(levelName: string, seed: number): LevelState {
  const family = Object.hasOwn(LEVEL_FAMILIES, levelName) ? LEVEL_FAMILIES[levelName] : undefined;
  if (family === undefined) {
    throw new InvalidArgumentError(
      `babyai generator: no level family "${levelName}"; choose one of ${GENERATED_LEVELS.join(', ')}`,
    );
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new InvalidArgumentError(
      `babyai generator: the seed must be a whole number of at least 0, got ${seed}`,
    );
  }
  const rng = createRng(`babyai/${levelName}/${seed}`);
  for (let sample = 0; sample < MAX_SAMPLES; sample++) {
    const world = new RoomGrid(rng, family.roomSize, family.rows, family.cols);
    let instr: ReturnType<typeof family.build>;
    try {
      instr = family.build(world);
    } catch (error) {
      if (error instanceof SampleRejected) continue;
      throw error;
    }
    const { grid } = world;
    const rows: string[] = [];
    for (let y = 0; y < grid.height; y++) {
      const cells: string[] = [];
      for (let x = 0; x < grid.width; x++) {
        const cell = grid.get(x, y);
        cells.push(cell === null ? '100' : encodeObject(cell).join(''));
      }
      rows.push(cells.join(' '));
    }
    return parseLevelState(
      {
        level: levelName,
        seed,
        mission: missionOf(world, instr),
        width: grid.width,
        height: grid.height,
        agent_pos: [...world.agentPos],
        agent_dir: world.agentDir,
        max_steps: maxStepsOf(family, instr),
        grid_rows: rows,
        instrs: instrDataOf(world, instr),
      },
      `generated ${levelName} seed ${seed}`,
    );
  }
  throw new Error(`babyai generator: ${levelName} seed ${seed} rejected ${MAX_SAMPLES} samples in a row`);
}
