// A BabyAI world under construction, in the spirit of Minigrid's RoomGrid: a rows × cols grid of
// square rooms sharing their walls, a door position drawn on every inner wall, and the seeded
// moves the level families build from (add a door, an object, distractors, place the agent,
// connect every room, check reachability). It draws from our own RNG, so a level family comes out
// with Minigrid's rules and odds but never seed for seed the same level.
import type { Rng } from '@pilotrl/core';
import { COLORS, type Color, DIR_TO_VEC, Grid, makeObject, type WorldObject } from './world';

export type Pos = readonly [number, number];
export type ObjectKind = 'key' | 'ball' | 'box';
export const OBJECT_KINDS: readonly ObjectKind[] = ['key', 'ball', 'box'];

/**
 * Thrown while building a level whose sample breaks a family's rule (an unreachable object, an
 * ambiguous instruction, a placement that found no room); the generator then draws a fresh world.
 */
export class SampleRejected extends Error {}

/** Minigrid's side order for doors and neighbours: right, down, left, up (as `DIR_TO_VEC`). */
export type Side = 0 | 1 | 2 | 3;
const SIDES: readonly Side[] = [0, 1, 2, 3];
const opposite = (side: Side) => ((side + 2) % 4) as Side;

export interface Room {
  readonly col: number;
  readonly row: number;
  /** Top-left wall cell; the room spans `size` cells each way, walls included. */
  readonly top: Pos;
  readonly size: number;
  /** By side: the door in that wall, or null. */
  readonly doors: (WorldObject | null)[];
  /** By side: where a door in that wall goes (drawn once per world), null on the outer walls. */
  readonly doorPos: (Pos | null)[];
  readonly neighbors: (Room | null)[];
  /** Set by `addDoor` (to its `locked`), so `connectAll` never adds a second way into a locked room. */
  locked: boolean;
  /** Objects placed in the room (doors are not counted). */
  readonly objects: WorldObject[];
}

/** Whether (x, y) lies in the room's rectangle, its walls included. */
export const roomHolds = (room: Room, x: number, y: number) =>
  x >= room.top[0] && y >= room.top[1] && x < room.top[0] + room.size && y < room.top[1] + room.size;

/** Placement gives up after this many draws (Minigrid's `max_tries`), and the sample is rejected. */
const PLACEMENT_TRIES = 1000;
const CONNECT_TRIES = 5000;

export class RoomGrid {
  readonly grid: Grid;
  readonly rooms: readonly Room[];
  /** Until `placeAgent`, the middle of the grid: objects placed before the agent keep clear of it. */
  agentPos: Pos;
  agentDir = 0;

  constructor(
    readonly rng: Rng,
    readonly roomSize: number,
    readonly rows: number,
    readonly cols: number,
  ) {
    const step = roomSize - 1;
    this.grid = new Grid(step * cols + 1, step * rows + 1);
    const rooms: Room[] = [];
    for (let row = 0; row < rows; row++) {
      for (let col = 0; col < cols; col++) {
        const room: Room = {
          col,
          row,
          top: [col * step, row * step],
          size: roomSize,
          doors: [null, null, null, null],
          doorPos: [null, null, null, null],
          neighbors: [null, null, null, null],
          locked: false,
          objects: [],
        };
        rooms.push(room);
        this.wallAround(room);
      }
    }
    this.rooms = rooms;
    for (const room of rooms) {
      const [x, y] = room.top;
      const far = roomSize - 1;
      if (room.col < cols - 1) {
        room.neighbors[0] = this.room(room.col + 1, room.row);
        room.doorPos[0] = [x + far, this.randInt(y + 1, y + far)];
      }
      if (room.row < rows - 1) {
        room.neighbors[1] = this.room(room.col, room.row + 1);
        room.doorPos[1] = [this.randInt(x + 1, x + far), y + far];
      }
      if (room.col > 0) {
        room.neighbors[2] = this.room(room.col - 1, room.row);
        room.doorPos[2] = room.neighbors[2].doorPos[0]!;
      }
      if (room.row > 0) {
        room.neighbors[3] = this.room(room.col, room.row - 1);
        room.doorPos[3] = room.neighbors[3].doorPos[1]!;
      }
    }
    this.agentPos = [
      Math.floor(cols / 2) * step + Math.floor(roomSize / 2),
      Math.floor(rows / 2) * step + Math.floor(roomSize / 2),
    ];
  }

  /** A uniform integer in [low, high). */
  randInt(low: number, high: number): number {
    return low + this.rng.int(high - low);
  }
  randBool(): boolean {
    return this.rng.int(2) === 0;
  }
  pick<T>(items: readonly T[]): T {
    return this.rng.pick(items);
  }
  /** `count` distinct items in random order. */
  subset<T>(items: readonly T[], count: number): T[] {
    return this.rng.shuffle(items).slice(0, count);
  }

  room(col: number, row: number): Room {
    return this.rooms[row * this.cols + col]!;
  }
  /** The room whose interior or top-left walls hold (x, y) (Minigrid's `room_from_pos`). */
  roomAt([x, y]: Pos): Room {
    const step = this.roomSize - 1;
    return this.room(
      Math.min(Math.floor(x / step), this.cols - 1),
      Math.min(Math.floor(y / step), this.rows - 1),
    );
  }

  /** Puts a door of `color` in the given wall of room (col, row); a random free inner wall by default. */
  addDoor(
    col: number,
    row: number,
    options: { side?: Side; color?: Color; locked?: boolean } = {},
  ): WorldObject {
    const room = this.room(col, row);
    let side = options.side;
    if (side === undefined) {
      const free = SIDES.filter((s) => room.neighbors[s] !== null && room.doors[s] === null);
      if (free.length === 0) throw new SampleRejected(`room (${col}, ${row}) has no free wall for a door`);
      side = this.pick(free);
    }
    const color = options.color ?? this.pick(COLORS);
    const locked = options.locked ?? this.randBool();
    const neighbor = room.neighbors[side] ?? null;
    const pos = room.doorPos[side] ?? null;
    if (neighbor === null || pos === null || room.doors[side] !== null) {
      throw new Error(`room (${col}, ${row}) cannot take a door on side ${side}`);
    }
    const door = makeObject('door', color, { locked });
    this.grid.set(pos[0], pos[1], door);
    room.locked = locked;
    room.doors[side] = door;
    neighbor.doors[opposite(side)] = door;
    return door;
  }

  /** Places `object` on a free cell of room (col, row), never on or beside the agent. */
  placeInRoom(col: number, row: number, object: WorldObject): WorldObject {
    const room = this.room(col, row);
    const [ax, ay] = this.agentPos;
    const pos = this.freeCell(room, ([x, y]) => Math.abs(x - ax) + Math.abs(y - ay) >= 2);
    this.grid.set(pos[0], pos[1], object);
    room.objects.push(object);
    return object;
  }

  /** A new key, ball or box in room (col, row); kind and colour random unless given. */
  addObject(col: number, row: number, kind?: ObjectKind, color?: Color): WorldObject {
    const type = kind ?? this.pick(OBJECT_KINDS);
    return this.placeInRoom(col, row, makeObject(type, color ?? this.pick(COLORS)));
  }

  /**
   * `count` random objects, in room (col, row) or each in a random room. With `unique`, none repeats
   * the kind and colour of an object already in the world.
   */
  addDistractors(options: { count: number; unique: boolean; col?: number; row?: number }): WorldObject[] {
    const taken = new Set(this.rooms.flatMap((room) => room.objects.map((o) => `${o.color} ${o.type}`)));
    const added: WorldObject[] = [];
    while (added.length < options.count) {
      const color = this.pick(COLORS);
      const kind = this.pick(OBJECT_KINDS);
      if (options.unique && taken.has(`${color} ${kind}`)) continue;
      const col = options.col ?? this.randInt(0, this.cols);
      const row = options.row ?? this.randInt(0, this.rows);
      added.push(this.addObject(col, row, kind, color));
      taken.add(`${color} ${kind}`);
    }
    return added;
  }

  /**
   * Puts the agent on a free cell of room (col, row) (a random room by default), facing a random
   * way, redrawn until the cell ahead is empty or a wall, so no object starts right in front of it.
   */
  placeAgent(col = this.randInt(0, this.cols), row = this.randInt(0, this.rows)): void {
    const room = this.room(col, row);
    for (;;) {
      // Off the grid while its cell is drawn, so the old position is no obstacle.
      this.agentPos = [-1, -1];
      this.agentPos = this.freeCell(room, () => true);
      this.agentDir = this.randInt(0, 4);
      const [dx, dy] = DIR_TO_VEC[this.agentDir]!;
      const ahead = this.grid.get(this.agentPos[0] + dx, this.agentPos[1] + dy);
      if (ahead === null || ahead.type === 'wall') return;
    }
  }

  /** Adds unlocked doors of `colors` in random walls until every room can be reached from the agent's. */
  connectAll(colors: readonly Color[] = COLORS): void {
    for (let tries = 0; this.roomsReached().size < this.rooms.length; tries++) {
      if (tries > CONNECT_TRIES) throw new SampleRejected('could not connect every room');
      const col = this.randInt(0, this.cols);
      const row = this.randInt(0, this.rows);
      const side = this.randInt(0, 4) as Side;
      const room = this.room(col, row);
      const neighbor = room.neighbors[side] ?? null;
      if (neighbor === null || room.doors[side] !== null || room.locked || neighbor.locked) continue;
      this.addDoor(col, row, { side, color: this.pick(colors), locked: false });
    }
  }

  /** Rooms joined to the agent's room by doors, locked ones included. */
  private roomsReached(): Set<Room> {
    const reached = new Set<Room>();
    const stack = [this.roomAt(this.agentPos)];
    while (stack.length > 0) {
      const room = stack.pop()!;
      if (reached.has(room)) continue;
      reached.add(room);
      for (const side of SIDES) if (room.doors[side] !== null) stack.push(room.neighbors[side]!);
    }
    return reached;
  }

  /**
   * Whether every object can be reached from the agent without moving another one; doors count
   * as passable whatever their state, as in Minigrid's `check_objs_reachable`.
   */
  allObjectsReachable(): boolean {
    const { width, height } = this.grid;
    const seen = new Uint8Array(width * height);
    const stack: Pos[] = [this.agentPos];
    while (stack.length > 0) {
      const [x, y] = stack.pop()!;
      if (!this.grid.inside(x, y) || seen[y * width + x] === 1) continue;
      seen[y * width + x] = 1;
      const cell = this.grid.get(x, y);
      if (cell !== null && cell.type !== 'door') continue;
      stack.push([x + 1, y], [x - 1, y], [x, y + 1], [x, y - 1]);
    }
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const cell = this.grid.get(x, y);
        if (cell !== null && cell.type !== 'wall' && seen[y * width + x] === 0) return false;
      }
    }
    return true;
  }

  requireAllReachable(): void {
    if (!this.allObjectsReachable()) throw new SampleRejected('an object cannot be reached');
  }

  /** Colours of the locked doors. */
  lockedDoorColors(): Set<Color> {
    const colors = new Set<Color>();
    for (const cell of this.grid.cells) if (cell?.type === 'door' && cell.isLocked) colors.add(cell.color);
    return colors;
  }

  private freeCell(room: Room, allowed: (pos: Pos) => boolean): Pos {
    for (let tries = 0; tries < PLACEMENT_TRIES; tries++) {
      const pos: Pos = [
        this.randInt(room.top[0], Math.min(room.top[0] + room.size, this.grid.width)),
        this.randInt(room.top[1], Math.min(room.top[1] + room.size, this.grid.height)),
      ];
      const onAgent = pos[0] === this.agentPos[0] && pos[1] === this.agentPos[1];
      if (this.grid.get(pos[0], pos[1]) === null && !onAgent && allowed(pos)) return pos;
    }
    throw new SampleRejected(`no free cell in room (${room.col}, ${room.row})`);
  }

  private wallAround(room: Room): void {
    const [x0, y0] = room.top;
    const last = room.size - 1;
    for (let k = 0; k <= last; k++) {
      for (const [x, y] of [
        [x0 + k, y0],
        [x0 + k, y0 + last],
        [x0, y0 + k],
        [x0 + last, y0 + k],
      ] as const) {
        this.grid.set(x, y, makeObject('wall', 'grey'));
      }
    }
  }
}
