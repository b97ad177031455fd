// Minigrid's `LevelGen` (levelgen.py), which GoToSeqS5R2, PickupLoc and SynthLoc are made with:
// an optional locked room, a maze connected by doors, distractors, and a random sentence of the
// Baby language whose descriptions must match objects in the world.
import {
  checkInstruction,
  type DescribedType,
  type Description,
  type InstrSpec,
  LOCATIONS,
  matchObjects,
} from './generated-instructions';
import type { LevelFamily } from './level-families';
import { addLockedRoom, placeAgentOutside } from './locked-rooms';
import { type Room, roomHolds, SampleRejected } from './room-grid';
import { COLORS } from './world';

const ALL_TYPES: readonly DescribedType[] = ['box', 'ball', 'key', 'door'];
const NOT_DOORS: readonly DescribedType[] = ['box', 'ball', 'key'];
/** Draws of a description before the sample is rejected. */
const DESCRIPTION_TRIES = 100;

export interface LanguageLevelOptions {
  readonly roomSize?: number;
  readonly rows?: number;
  readonly cols?: number;
  readonly distractors?: number;
  readonly lockedRoomChance?: number;
  /** Whether descriptions may name where an object lies relative to the agent. */
  readonly locations?: boolean;
  /** Whether objects may block the way (no reachability check), and keys of locked doors go unnamed. */
  readonly unblocking?: boolean;
  /** Whether the instruction may need the locked room's key; if not, a description must match outside it. */
  readonly implicitUnlock?: boolean;
  readonly actions?: readonly ('goto' | 'pickup' | 'open' | 'putnext')[];
  readonly shapes?: readonly ('action' | 'and' | 'seq')[];
}

/** Minigrid's `LevelGen`: random sentences of the Baby language over a maze with distractors. */
export function languageLevel(options: LanguageLevelOptions): LevelFamily {
  const {
    roomSize = 8,
    rows = 3,
    cols = 3,
    distractors = 18,
    lockedRoomChance = 0.5,
    locations = true,
    unblocking = true,
    implicitUnlock = true,
    actions = ['goto', 'pickup', 'open', 'putnext'],
    shapes = ['action', 'and', 'seq'],
  } = options;
  return {
    roomSize,
    rows,
    cols,
    build(world) {
      let lockedRoom: Room | null = null;
      if (world.rng.float() < lockedRoomChance) lockedRoom = addLockedRoom(world);
      world.connectAll();
      world.addDistractors({ count: distractors, unique: false });
      placeAgentOutside(world, lockedRoom);
      if (!unblocking) world.requireAllReachable();

      const describe = (types: readonly DescribedType[]): Description => {
        for (let tries = 0; tries <= DESCRIPTION_TRIES; tries++) {
          const color = world.pick([null, ...COLORS]);
          const type = world.pick(types);
          const loc = locations && world.randBool() ? world.pick(LOCATIONS) : null;
          const { positions } = matchObjects(world, { type, color, loc });
          if (positions.length === 0) continue;
          if (
            !implicitUnlock &&
            lockedRoom !== null &&
            positions.every(([x, y]) => roomHolds(lockedRoom, x, y))
          )
            continue;
          return { type, color, loc };
        }
        throw new SampleRejected('no description matched an object');
      };
      const sentence = (allowed: readonly ('action' | 'and' | 'seq')[]): InstrSpec => {
        const shape = world.pick(allowed);
        if (shape === 'and') return { kind: 'AndInstr', a: sentence(['action']), b: sentence(['action']) };
        if (shape === 'seq') {
          const a = sentence(['action', 'and']);
          const b = sentence(['action', 'and']);
          return { kind: world.randBool() ? 'BeforeInstr' : 'AfterInstr', a, b };
        }
        switch (world.pick(actions)) {
          case 'goto':
            return { kind: 'GoToInstr', desc: describe(ALL_TYPES) };
          case 'pickup':
            return { kind: 'PickupInstr', desc: describe(NOT_DOORS) };
          case 'open':
            return { kind: 'OpenInstr', desc: describe(['door']) };
          case 'putnext':
            return { kind: 'PutNextInstr', move: describe(NOT_DOORS), fixed: describe(ALL_TYPES) };
        }
      };
      const instr = sentence(shapes);
      checkInstruction(world, instr, unblocking);
      return instr;
    },
  };
}
