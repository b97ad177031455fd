// Minigrid's world as the BabyAI levels use it: objects, their encoding (type, colour, state
// indices), the grid, and the rules of the seven primitive actions (Minigrid v2.3.1 `minigrid_env.py`).

export const OBJECT_TYPES = [
  'unseen',
  'empty',
  'wall',
  'floor',
  'door',
  'key',
  'ball',
  'box',
  'goal',
  'lava',
  'agent',
] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];
export const COLORS = ['red', 'green', 'blue', 'purple', 'yellow', 'grey'] as const;
export type Color = (typeof COLORS)[number];
export const DOOR_STATES = ['open', 'closed', 'locked'] as const;

/** Minigrid's direction vectors: 0 right, 1 down, 2 left, 3 up (y grows downwards). */
export const DIR_TO_VEC: readonly (readonly [number, number])[] = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
];

export const PRIMITIVES = { left: 0, right: 1, forward: 2, pickup: 3, drop: 4, toggle: 5, done: 6 } as const;
export type Primitive = (typeof PRIMITIVES)[keyof typeof PRIMITIVES];

/** A placed object. Identity matters: the verifier tracks objects, not positions. */
export interface WorldObject {
  readonly type: Exclude<ObjectType, 'unseen' | 'empty' | 'agent'>;
  readonly color: Color;
  isOpen: boolean;
  isLocked: boolean;
  /** What a box holds (toggling the box replaces it with this). */
  contains: WorldObject | null;
  /** Where it lies; null while carried. */
  curPos: readonly [number, number] | null;
}

export function makeObject(
  type: WorldObject['type'],
  color: Color,
  state: { open?: boolean; locked?: boolean } = {},
): WorldObject {
  return {
    type,
    color,
    isOpen: state.open ?? false,
    isLocked: state.locked ?? false,
    contains: null,
    curPos: null,
  };
}

export const canOverlap = (o: WorldObject) =>
  o.type === 'door' ? o.isOpen : o.type === 'goal' || o.type === 'floor' || o.type === 'lava';
export const canPickup = (o: WorldObject) => o.type === 'key' || o.type === 'ball' || o.type === 'box';
export const seeBehind = (o: WorldObject) =>
  o.type === 'wall' ? false : o.type === 'door' ? o.isOpen : true;

/** Minigrid's index of an object type (`OBJECT_TYPES.indexOf`), as a switch: it runs for every cell of every view. */
export function typeIndex(type: ObjectType): number {
  switch (type) {
    case 'unseen':
      return 0;
    case 'empty':
      return 1;
    case 'wall':
      return 2;
    case 'floor':
      return 3;
    case 'door':
      return 4;
    case 'key':
      return 5;
    case 'ball':
      return 6;
    case 'box':
      return 7;
    case 'goal':
      return 8;
    case 'lava':
      return 9;
    case 'agent':
      return 10;
    default:
      return -1;
  }
}

/** Minigrid's index of a colour (`COLORS.indexOf`). */
export function colorIndex(color: Color): number {
  switch (color) {
    case 'red':
      return 0;
    case 'green':
      return 1;
    case 'blue':
      return 2;
    case 'purple':
      return 3;
    case 'yellow':
      return 4;
    case 'grey':
      return 5;
    default:
      return -1;
  }
}

/** Minigrid's door state: 0 open, 1 closed, 2 locked; 0 for every other object. */
export const objectState = (o: WorldObject) => (o.type === 'door' ? (o.isOpen ? 0 : o.isLocked ? 2 : 1) : 0);

/** Minigrid's `encode()`: (type index, colour index, state), state 0 open / 1 closed / 2 locked for doors. */
export function encodeObject(o: WorldObject): [number, number, number] {
  return [typeIndex(o.type), colorIndex(o.color), objectState(o)];
}

export class Grid {
  readonly cells: (WorldObject | null)[];
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.cells = new Array<WorldObject | null>(width * height).fill(null);
  }
  inside(x: number, y: number): boolean {
    return x >= 0 && y >= 0 && x < this.width && y < this.height;
  }
  get(x: number, y: number): WorldObject | null {
    return this.cells[y * this.width + x] ?? null;
  }
  set(x: number, y: number, o: WorldObject | null): void {
    this.cells[y * this.width + x] = o;
    if (o !== null) o.curPos = [x, y];
  }
}
