// Instructions of generated levels: object descriptions matched against the built world (as
// Minigrid's `find_matching_objs` does at reset), the mission worded as Minigrid's `surface()`
// words it (the text layer and the verifier read it), the rejection rules every BabyAI level
// applies to its instruction, and the instruction tree as a `LevelState` holds it.
import type { InstrData, ObjDescData } from './level';
import { type Pos, type RoomGrid, roomHolds, SampleRejected } from './room-grid';
import { type Color, DIR_TO_VEC, type WorldObject } from './world';

export type DescribedType = 'box' | 'ball' | 'key' | 'door';
/** Where an object lies relative to the agent's start: Minigrid's `LOC_NAMES`. */
export type Location = 'left' | 'right' | 'front' | 'behind';
export const LOCATIONS: readonly Location[] = ['left', 'right', 'front', 'behind'];

/** An object description; null fields match anything. */
export interface Description {
  readonly type: DescribedType | null;
  readonly color: Color | null;
  readonly loc: Location | null;
}

export type InstrSpec =
  | { readonly kind: 'GoToInstr'; readonly desc: Description }
  | { readonly kind: 'PickupInstr' | 'OpenInstr'; readonly desc: Description; readonly strict?: boolean }
  | { readonly kind: 'PutNextInstr'; readonly move: Description; readonly fixed: Description }
  | {
      readonly kind: 'BeforeInstr' | 'AfterInstr' | 'AndInstr';
      readonly a: InstrSpec;
      readonly b: InstrSpec;
    };

/** A description of `object` by type and colour. */
export const describeObject = (object: WorldObject, loc: Location | null = null): Description => ({
  type: object.type as DescribedType,
  color: object.color,
  loc,
});

interface Matches {
  readonly objects: WorldObject[];
  readonly positions: Pos[];
}

/**
 * The objects `desc` matches, scanning columns then rows as Minigrid does. A location only matches
 * objects in the agent's room (its walls and doors included), on that side of the agent's start.
 * Any cell counts, walls too: a description by colour alone ("a grey object") matches grey walls.
 */
export function matchObjects(world: RoomGrid, desc: Description): Matches {
  const objects: WorldObject[] = [];
  const positions: Pos[] = [];
  const agentRoom = world.roomAt(world.agentPos);
  const [fx, fy] = DIR_TO_VEC[world.agentDir]!;
  for (let x = 0; x < world.grid.width; x++) {
    for (let y = 0; y < world.grid.height; y++) {
      const cell = world.grid.get(x, y);
      if (cell === null) continue;
      if (
        (desc.type !== null && cell.type !== desc.type) ||
        (desc.color !== null && cell.color !== desc.color)
      )
        continue;
      if (desc.loc !== null) {
        if (!roomHolds(agentRoom, x, y)) continue;
        const [vx, vy] = [x - world.agentPos[0], y - world.agentPos[1]];
        const ahead = vx * fx + vy * fy;
        // The agent's right is its facing vector turned a quarter clockwise (y grows downwards).
        const right = vx * -fy + vy * fx;
        const side = { left: right < 0, right: right > 0, front: ahead > 0, behind: ahead < 0 };
        if (!side[desc.loc]) continue;
      }
      objects.push(cell);
      positions.push([x, y]);
    }
  }
  return { objects, positions };
}

const LOCATION_WORDS: Record<Location, string> = {
  left: 'on your left',
  right: 'on your right',
  front: 'in front of you',
  behind: 'behind you',
};

/** "the red ball", "a key on your left", "the green object": "a" when several objects match. */
function wordDescription(world: RoomGrid, desc: Description): string {
  const count = matchObjects(world, desc).objects.length;
  if (count === 0) throw new Error(`no object matches ${JSON.stringify(desc)}`);
  const words = [desc.color, desc.type ?? 'object', desc.loc === null ? null : LOCATION_WORDS[desc.loc]];
  return `${count > 1 ? 'a' : 'the'} ${words.filter((word) => word !== null).join(' ')}`;
}

/** The mission, worded as Minigrid's `surface()`. */
export function missionOf(world: RoomGrid, instr: InstrSpec): string {
  switch (instr.kind) {
    case 'GoToInstr':
      return `go to ${wordDescription(world, instr.desc)}`;
    case 'PickupInstr':
      return `pick up ${wordDescription(world, instr.desc)}`;
    case 'OpenInstr':
      return `open ${wordDescription(world, instr.desc)}`;
    case 'PutNextInstr':
      return `put ${wordDescription(world, instr.move)} next to ${wordDescription(world, instr.fixed)}`;
    case 'BeforeInstr':
      return `${missionOf(world, instr.a)}, then ${missionOf(world, instr.b)}`;
    case 'AfterInstr':
      return `${missionOf(world, instr.a)} after you ${missionOf(world, instr.b)}`;
    case 'AndInstr':
      return `${missionOf(world, instr.a)} and ${missionOf(world, instr.b)}`;
  }
}

/** Navigations the instruction needs, which scale Minigrid's step limit: two for a put-next. */
export function navigationsOf(instr: InstrSpec): number {
  if (instr.kind === 'PutNextInstr') return 2;
  if ('a' in instr) return navigationsOf(instr.a) + navigationsOf(instr.b);
  return 1;
}

function descriptionsOf(instr: InstrSpec): Description[] {
  if ('a' in instr) return [...descriptionsOf(instr.a), ...descriptionsOf(instr.b)];
  return instr.kind === 'PutNextInstr' ? [instr.move, instr.fixed] : [instr.desc];
}

/**
 * Minigrid's checks on a sampled instruction: a put-next must not name one object on both sides
 * nor objects already side by side; with `unblocking` (levels whose objects may block the way), no
 * description may name a key of a locked door's colour.
 */
export function checkInstruction(world: RoomGrid, instr: InstrSpec, unblocking: boolean): void {
  if ('a' in instr) {
    checkInstruction(world, instr.a, unblocking);
    checkInstruction(world, instr.b, unblocking);
    return;
  }
  if (instr.kind === 'PutNextInstr') {
    const move = matchObjects(world, instr.move).objects;
    const fixed = matchObjects(world, instr.fixed);
    if (move.some((o) => fixed.objects.includes(o))) throw new SampleRejected('an object matches both sides');
    const touching = move.some((o) =>
      fixed.positions.some(([x, y]) => Math.abs(x - o.curPos![0]) + Math.abs(y - o.curPos![1]) === 1),
    );
    if (touching) throw new SampleRejected('the objects are already next to each other');
  }
  if (!unblocking) return;
  const lockedColors = world.lockedDoorColors();
  for (const desc of descriptionsOf(instr)) {
    if (desc.type === 'key' && desc.color !== null && lockedColors.has(desc.color)) {
      throw new SampleRejected('the instruction names the key of a locked door');
    }
  }
}

function descriptionData(world: RoomGrid, desc: Description): ObjDescData {
  const { positions } = matchObjects(world, desc);
  return { type: desc.type, color: desc.color, loc: desc.loc, obj_poss: positions.map(([x, y]) => [x, y]) };
}

/** The instruction tree with the positions each description matches at reset, as `LevelState.instrs`. */
export function instrDataOf(world: RoomGrid, instr: InstrSpec): InstrData {
  switch (instr.kind) {
    case 'GoToInstr':
      return { kind: instr.kind, desc: descriptionData(world, instr.desc) };
    case 'PickupInstr':
    case 'OpenInstr':
      return { kind: instr.kind, desc: descriptionData(world, instr.desc), strict: instr.strict ?? false };
    case 'PutNextInstr':
      return {
        kind: instr.kind,
        move: descriptionData(world, instr.move),
        fixed: descriptionData(world, instr.fixed),
        strict: false,
      };
    default:
      return {
        kind: instr.kind,
        a: instrDataOf(world, instr.a),
        b: instrDataOf(world, instr.b),
        strict: false,
      };
  }
}
