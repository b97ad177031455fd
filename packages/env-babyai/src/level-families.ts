// The BabyAI level families the generator makes, by Minigrid name: each family's world size and
// how it builds one sample (rooms, doors, objects, agent, instruction), following the rules of
// Minigrid v2.3.1's level classes (goto.py, open.py, pickup.py, putnext.py, unlock.py, other.py,
// synth.py; levelgen.py's in language-levels.ts). A build throws `SampleRejected` where Minigrid rejects the sample.
import {
  checkInstruction,
  describeObject,
  type InstrSpec,
  LOCATIONS,
  navigationsOf,
} from './generated-instructions';
import { languageLevel } from './language-levels';
import { addLockedDoor, placeAgentOutside } from './locked-rooms';
import { type RoomGrid, SampleRejected, type Side } from './room-grid';
import { COLORS, type WorldObject } from './world';

export interface LevelFamily {
  readonly roomSize: number;
  readonly rows: number;
  readonly cols: number;
  /** The family's fixed step limit; by default Minigrid's room size² × rooms × navigations needed. */
  readonly maxSteps?: number;
  /** Builds one sample on a fresh world and returns its instruction, checked. */
  build(world: RoomGrid): InstrSpec;
}

/** Minigrid's default: a 3 × 3 grid of 8-cell rooms. */
const MAZE = { roomSize: 8, rows: 3, cols: 3 } as const;
const oneRoom = (roomSize: number) => ({ roomSize, rows: 1, cols: 1 }) as const;

/** Steps allowed to play `instr` in a family without a fixed limit. */
export function maxStepsOf(family: LevelFamily, instr: InstrSpec): number {
  return family.maxSteps ?? navigationsOf(instr) * family.roomSize ** 2 * family.rows * family.cols;
}

/** Every door of the world, once per room it opens into, so each door is equally likely. */
function doorsOf(world: RoomGrid): WorldObject[] {
  return world.rooms.flatMap((room) => room.doors.filter((door): door is WorldObject => door !== null));
}

/** An instruction without rejection rules of its own, checked as every BabyAI level checks it. */
const checked = (world: RoomGrid, instr: InstrSpec): InstrSpec => {
  checkInstruction(world, instr, false);
  return instr;
};

/** Go to the red ball in one room, with `distractors` other objects (all grey when `grey`). */
function redBall(distractors: number, grey: boolean): LevelFamily {
  return {
    ...oneRoom(8),
    build(world) {
      world.placeAgent();
      const ball = world.addObject(0, 0, 'ball', 'red');
      if (grey) for (let k = 0; k < distractors; k++) world.addObject(0, 0, undefined, 'grey');
      else world.addDistractors({ count: distractors, unique: false });
      world.requireAllReachable();
      return checked(world, { kind: 'GoToInstr', desc: describeObject(ball) });
    },
  };
}

/** Go to one of `distractors` objects in a single room of `roomSize`. */
function goToLocal(roomSize: number, distractors: number): LevelFamily {
  return {
    ...oneRoom(roomSize),
    build(world) {
      world.placeAgent();
      const objects = world.addDistractors({ count: distractors, unique: false });
      world.requireAllReachable();
      return checked(world, { kind: 'GoToInstr', desc: describeObject(world.pick(objects)) });
    },
  };
}

/** Adds `count` distractors to every room (the locked one too, as Minigrid v2.3.1 does in practice). */
function distractorsInEveryRoom(world: RoomGrid, count: number): void {
  for (const room of world.rooms)
    world.addDistractors({ count, unique: false, col: room.col, row: room.row });
}

/** Four doors of random colours in the walls of the middle room of a 3 × 3 maze. */
function middleRoomDoors(world: RoomGrid, locked?: boolean): WorldObject[] {
  return Array.from({ length: 4 }, () => world.addDoor(1, 1, locked === undefined ? {} : { locked }));
}

export const LEVEL_FAMILIES: Readonly<Record<string, LevelFamily>> = {
  'BabyAI-GoToRedBallGrey-v0': redBall(7, true),
  'BabyAI-GoToRedBall-v0': redBall(7, false),
  'BabyAI-GoToRedBallNoDists-v0': redBall(0, false),
  // Registered with room size 4 although the name says 6 (a registry slip Minigrid kept for -v0).
  'BabyAI-GoToObjS6-v0': {
    ...oneRoom(4),
    build(world) {
      world.placeAgent();
      const [object] = world.addDistractors({ count: 1, unique: true });
      return checked(world, { kind: 'GoToInstr', desc: describeObject(object!) });
    },
  },
  'BabyAI-GoToLocalS8N7-v0': goToLocal(8, 7),
  'BabyAI-GoToObjMazeS7-v0': {
    roomSize: 7,
    rows: 3,
    cols: 3,
    build(world) {
      world.placeAgent();
      world.connectAll();
      const objects = world.addDistractors({ count: 1, unique: false });
      world.requireAllReachable();
      return checked(world, { kind: 'GoToInstr', desc: describeObject(world.pick(objects)) });
    },
  },
  'BabyAI-GoToImpUnlock-v0': {
    ...MAZE,
    build(world) {
      const { lockedRoom } = addLockedDoor(world);
      world.connectAll();
      distractorsInEveryRoom(world, 2);
      placeAgentOutside(world, lockedRoom);
      world.requireAllReachable();
      const [target] = world.addDistractors({
        count: 1,
        unique: false,
        col: lockedRoom.col,
        row: lockedRoom.row,
      });
      return checked(world, { kind: 'GoToInstr', desc: describeObject(target!) });
    },
  },
  'BabyAI-GoToSeqS5R2-v0': languageLevel({
    roomSize: 5,
    rows: 2,
    cols: 2,
    distractors: 4,
    lockedRoomChance: 0,
    locations: false,
    unblocking: false,
    actions: ['goto'],
  }),
  'BabyAI-GoToRedBlueBall-v0': {
    ...oneRoom(8),
    build(world) {
      world.placeAgent();
      const objects = world.addDistractors({ count: 7, unique: false });
      if (objects.some((o) => o.type === 'ball' && (o.color === 'red' || o.color === 'blue')))
        throw new SampleRejected('a distractor is a red or blue ball');
      const ball = world.addObject(0, 0, 'ball', world.pick(['red', 'blue'] as const));
      world.requireAllReachable();
      return checked(world, { kind: 'GoToInstr', desc: describeObject(ball) });
    },
  },
  'BabyAI-GoToDoor-v0': {
    roomSize: 7,
    rows: 3,
    cols: 3,
    build(world) {
      const doors = middleRoomDoors(world);
      world.placeAgent(1, 1);
      return checked(world, { kind: 'GoToInstr', desc: describeObject(world.pick(doors)) });
    },
  },
  'BabyAI-GoToObjDoor-v0': {
    ...MAZE,
    build(world) {
      world.placeAgent(1, 1);
      const objects = world.addDistractors({ count: 8, unique: false, col: 1, row: 1 });
      objects.push(...middleRoomDoors(world));
      world.requireAllReachable();
      return checked(world, { kind: 'GoToInstr', desc: describeObject(world.pick(objects)) });
    },
  },
  'BabyAI-Open-v0': {
    ...MAZE,
    build(world) {
      world.placeAgent();
      world.connectAll();
      world.addDistractors({ count: 18, unique: false });
      world.requireAllReachable();
      return checked(world, { kind: 'OpenInstr', desc: describeObject(world.pick(doorsOf(world))) });
    },
  },
  'BabyAI-OpenRedDoor-v0': {
    roomSize: 5,
    rows: 1,
    cols: 2,
    build(world) {
      const door = world.addDoor(0, 0, { side: 0, color: 'red', locked: false });
      world.placeAgent(0, 0);
      return checked(world, { kind: 'OpenInstr', desc: describeObject(door) });
    },
  },
  'BabyAI-OpenDoorLoc-v0': {
    ...MAZE,
    build(world) {
      const colors = world.subset(COLORS, 4);
      for (const [side, color] of colors.entries()) {
        world.addDoor(1, 1, { side: side as Side, color, locked: false });
      }
      world.placeAgent(1, 1);
      return checked(world, {
        kind: 'OpenInstr',
        desc: { type: 'door', color: null, loc: world.pick(LOCATIONS) },
      });
    },
  },
  'BabyAI-Pickup-v0': {
    ...MAZE,
    build(world) {
      world.placeAgent();
      world.connectAll();
      const objects = world.addDistractors({ count: 18, unique: false });
      world.requireAllReachable();
      return checked(world, { kind: 'PickupInstr', desc: describeObject(world.pick(objects)) });
    },
  },
  'BabyAI-PickupLoc-v0': languageLevel({
    ...oneRoom(8),
    distractors: 8,
    lockedRoomChance: 0,
    unblocking: false,
    actions: ['pickup'],
    shapes: ['action'],
  }),
  // The debug variant: picking up any other object fails the episode.
  'BabyAI-PickupDistDebug-v0': {
    ...oneRoom(7),
    build(world) {
      const objects = world.addDistractors({ count: 5, unique: true });
      world.placeAgent(0, 0);
      const { type, color } = describeObject(world.pick(objects));
      const by = world.pick(['type', 'color', 'both'] as const);
      const desc = { type: by === 'color' ? null : type, color: by === 'type' ? null : color, loc: null };
      return checked(world, { kind: 'PickupInstr', desc, strict: true });
    },
  },
  'BabyAI-PickupAbove-v0': {
    roomSize: 6,
    rows: 3,
    cols: 3,
    maxSteps: 8 * 6 ** 2,
    build(world) {
      const object = world.addObject(1, 0);
      world.addDoor(1, 1, { side: 3, locked: false });
      world.placeAgent(1, 1);
      world.connectAll();
      return checked(world, { kind: 'PickupInstr', desc: describeObject(object) });
    },
  },
  'BabyAI-PutNextLocalS6N4-v0': {
    ...oneRoom(6),
    build(world) {
      world.placeAgent();
      const objects = world.addDistractors({ count: 4, unique: true });
      world.requireAllReachable();
      const [move, fixed] = world.subset(objects, 2);
      return checked(world, {
        kind: 'PutNextInstr',
        move: describeObject(move!),
        fixed: describeObject(fixed!),
      });
    },
  },
  'BabyAI-Unlock-v0': {
    ...MAZE,
    build(world) {
      const { door, lockedRoom } = addLockedDoor(world);
      // Half the time no other door shares the locked door's colour.
      world.connectAll(world.randBool() ? COLORS.filter((color) => color !== door.color) : COLORS);
      distractorsInEveryRoom(world, 3);
      placeAgentOutside(world, lockedRoom);
      world.requireAllReachable();
      return checked(world, { kind: 'OpenInstr', desc: describeObject(door) });
    },
  },
  'BabyAI-ActionObjDoor-v0': {
    roomSize: 7,
    rows: 3,
    cols: 3,
    build(world) {
      const objects = world.addDistractors({ count: 5, unique: true, col: 1, row: 1 });
      objects.push(...middleRoomDoors(world, false));
      world.placeAgent(1, 1);
      const target = world.pick(objects);
      const desc = describeObject(target);
      if (world.randBool()) return checked(world, { kind: 'GoToInstr', desc });
      return checked(world, { kind: target.type === 'door' ? 'OpenInstr' : 'PickupInstr', desc });
    },
  },
  'BabyAI-FindObjS7-v0': {
    roomSize: 7,
    rows: 3,
    cols: 3,
    maxSteps: 20 * 7 ** 2,
    build(world) {
      const object = world.addObject(world.randInt(0, world.cols), world.randInt(0, world.rows));
      world.placeAgent(1, 1);
      world.connectAll();
      return checked(world, { kind: 'PickupInstr', desc: { ...describeObject(object), color: null } });
    },
  },
  'BabyAI-OneRoomS20-v0': {
    ...oneRoom(20),
    build(world) {
      world.addObject(0, 0, 'ball');
      world.placeAgent();
      return checked(world, { kind: 'PickupInstr', desc: { type: 'ball', color: null, loc: null } });
    },
  },
  'BabyAI-SynthLoc-v0': languageLevel({ implicitUnlock: false, shapes: ['action'] }),
};
