// AgentGym's text view of a BabyAI state (`BabyAI.postprocess_obs` and `find_path` in AgentGym's
// `agentenv-babyai/agentenv_babyai/environment.py`): the description of what the agent sees, the
// commands it may give with the primitive actions each one expands to, and the refusal for each
// command it knows to be impossible. Every string, count and quirk is the original's.
import { type Game, VIEW_SIZE } from './game';
import { COLORS, DIR_TO_VEC, DOOR_STATES, OBJECT_TYPES, PRIMITIVES, type Primitive } from './world';

export interface TextView {
  readonly description: string;
  /** Commands in AgentGym's order, each with its primitive actions. */
  readonly actions: Map<string, Primitive[]>;
  /** AgentGym's refusal for commands it knows but cannot do now. */
  readonly errors: Map<string, string>;
  /** Where each object command leads: the cell of its object (for the oracle and plan steps). */
  readonly targets: Map<string, readonly [number, number]>;
}

/**
 * What the text needs of a name an image cell gives (`red ball`, `blue locked door`), worked out once
 * per encoding with AgentGym's own substring tests on the name.
 */
interface NameInfo {
  readonly name: string;
  /** The same for every encoding with this name, to count objects by name. */
  readonly id: number;
  readonly color: string;
  readonly wall: boolean;
  readonly door: boolean;
  readonly goal: boolean;
  readonly openDoor: boolean;
  readonly closedDoor: boolean;
  readonly lockedDoor: boolean;
  /** AgentGym's planner cannot walk through it (walls, boxes, lava, balls, keys). */
  readonly blocks: boolean;
}

const DESCRIBED = new Set<string>(['door', 'key', 'ball', 'box', 'goal', 'lava', 'wall']);
const BLOCKING = ['wall', 'box', 'lava', 'ball', 'key'];

/** `NAMES[(type * colours + colour) * 3 + state]` for the image's (type, colour, state); undefined for types AgentGym does not describe. */
const NAMES: (NameInfo | undefined)[] = [];
const nameIds = new Map<string, number>();
OBJECT_TYPES.forEach((type, t) => {
  COLORS.forEach((color, c) => {
    DOOR_STATES.forEach((doorState, state) => {
      if (!DESCRIBED.has(type)) return;
      const name = type === 'door' ? `${color} ${doorState} door` : `${color} ${type}`;
      if (!nameIds.has(name)) nameIds.set(name, nameIds.size);
      NAMES[(t * COLORS.length + c) * DOOR_STATES.length + state] = {
        name,
        id: nameIds.get(name)!,
        color,
        wall: name.includes('wall'),
        door: name.includes('door'),
        goal: name.includes('goal'),
        openDoor: name.includes('open door'),
        closedDoor: name.includes('closed door'),
        lockedDoor: name.includes('locked door'),
        blocks: BLOCKING.some((kind) => name.includes(kind)),
      };
    });
  });
});
const NAME_COUNT = nameIds.size;
const BOX = OBJECT_TYPES.indexOf('box');
const WALL = OBJECT_TYPES.indexOf('wall');
const DX = DIR_TO_VEC.map(([dx]) => dx);
const DY = DIR_TO_VEC.map(([, dy]) => dy);

interface Seen {
  readonly info: NameInfo;
  readonly x: number;
  readonly y: number;
  /** Steps in front of the agent. */
  readonly front: number;
  /** Steps to its right (negative: to its left). */
  readonly right: number;
}

/**
 * The cells of the view but the agent's, in AgentGym's order: by distance from the agent (steps in
 * front plus steps aside), ties in the order of its scan (far row first, left to right), as its
 * stable sort leaves them. For each: its index in the image, steps in front, steps to the right.
 */
const VIEW_ORDER = Array.from({ length: VIEW_SIZE * VIEW_SIZE }, (_, k) => {
  const [j, i] = [Math.floor(k / VIEW_SIZE), k % VIEW_SIZE];
  return { at: (i * VIEW_SIZE + j) * 3, front: VIEW_SIZE - 1 - j, right: i - (VIEW_SIZE >> 1) };
})
  .filter(({ front, right }) => front !== 0 || right !== 0)
  .sort((a, b) => a.front + Math.abs(a.right) - (b.front + Math.abs(b.right)));
const VIEW_AT = Int32Array.from(VIEW_ORDER, ({ at }) => at);
const VIEW_FRONT = Int32Array.from(VIEW_ORDER, ({ front }) => front);
const VIEW_RIGHT = Int32Array.from(VIEW_ORDER, ({ right }) => right);

/** Python's `str(dict)` of a name → count dict, which one AgentGym message prints by mistake. */
const pythonDict = (counts: Map<string, number>) =>
  `{${[...counts].map(([name, count]) => `'${name}': ${count}`).join(', ')}}`;

/** AgentGym's `doors` dict as it stands at `seen[last]`: each door name so far with its count. */
function doorCounts(seen: readonly Seen[], last: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let k = 0; k <= last; k++) {
    const { name, door } = seen[k]!.info;
    if (door) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/** Python's `range(a, b)` bounds as AgentGym computes the planning area around the view. */
function planningRange(corner: number, border: number): readonly [number, number] {
  return border < corner ? [border, corner + 1] : [corner, border];
}

/** The planning area is the 7×7 view and one more row or column: at most 8×8, held with a border of one. */
const PAD = 10;
const PADDED_CELLS = PAD * PAD;
/** Index steps of a step forward in each direction. */
const STEP = DIR_TO_VEC.map(([dx, dy]) => dy * PAD + dx);

/** Per area size: every padded cell closed but those of the area. */
const outlines = new Map<number, Uint8Array>();
function areaOutline(width: number, height: number): Uint8Array {
  let outline = outlines.get(width * PAD + height);
  if (outline === undefined) {
    outline = new Uint8Array(PADDED_CELLS).fill(1);
    for (let cy = 1; cy <= height; cy++) outline.fill(0, cy * PAD + 1, cy * PAD + 1 + width);
    outlines.set(width * PAD + height, outline);
  }
  return outline;
}

/**
 * AgentGym's BFS over (cell, direction) inside the planning area, with forward/left/right moves; the
 * cells of visible walls, boxes, lava, balls and keys block. Ported with its quirks: a state counts as
 * visited only once popped, and a later push overwrites the way a queued state was reached, so a path
 * is not always a shortest one.
 *
 * AgentGym runs one search per object from the same start; its order of exploration does not depend
 * on the goal, only where it stops does. So one search serves every goal of a view: it records the
 * first popped state standing on, and the first facing, each cell, and runs on only as far as a goal
 * not met yet needs. A popped state's way back never changes after its pop, so each path is the one
 * AgentGym's own search for that goal returns.
 *
 * Cells are numbered on a 10×10 grid around the area, `(y - y0 + 1) * 10 + (x - x0 + 1)`, and a state
 * is `cell * 4 + direction`.
 */
class PathFinder {
  private x0 = 0;
  private y0 = 0;
  private start = 0;
  private head = 0;
  private tail = 0;
  private queue = new Int16Array(1024);
  private readonly popped = new Uint8Array(PADDED_CELLS * 4);
  private readonly cameFrom = new Int16Array(PADDED_CELLS * 4);
  private readonly cameBy = new Uint8Array(PADDED_CELLS * 4);
  /** Cells a step cannot enter: outside the area, or blocked. */
  private readonly closed = new Uint8Array(PADDED_CELLS);
  /** Per cell: the first popped state standing on it, or -1. */
  private readonly firstOn = new Int16Array(PADDED_CELLS);
  /** Per cell: the first popped state facing it, or -1. */
  private readonly firstFacing = new Int16Array(PADDED_CELLS);

  /** Starts a search from (x, y) facing `dir` inside x0 ≤ x < x1, y0 ≤ y < y1. */
  reset(xr: readonly [number, number], yr: readonly [number, number], x: number, y: number, dir: number) {
    this.x0 = xr[0];
    this.y0 = yr[0];
    this.closed.set(areaOutline(xr[1] - xr[0], yr[1] - yr[0]));
    this.popped.fill(0);
    this.firstOn.fill(-1);
    this.firstFacing.fill(-1);
    this.start = this.cellOf(x, y) * 4 + dir;
    this.queue[0] = this.start;
    this.head = 0;
    this.tail = 1;
  }

  /** The padded cell of (x, y), or -1 beyond the border. */
  private cellOf(x: number, y: number): number {
    const px = x - this.x0 + 1;
    const py = y - this.y0 + 1;
    return px >= 0 && py >= 0 && px < PAD && py < PAD ? py * PAD + px : -1;
  }

  /** Marks the cell (x, y) as not walkable. */
  block(x: number, y: number): void {
    const cell = this.cellOf(x, y);
    if (cell !== -1) this.closed[cell] = 1;
  }

  /** AgentGym's path to stand on (`arrive`) or to face (x, y), or null when there is none. */
  pathTo(x: number, y: number, arrive: boolean): Primitive[] | null {
    const cell = this.cellOf(x, y);
    if (cell === -1) return null;
    const table = arrive ? this.firstOn : this.firstFacing;
    if (table[cell] === -1) this.search(table, cell);
    const state = table[cell]!;
    return state === -1 ? null : this.pathOf(state);
  }

  /** Pops states, as AgentGym's search does, until one meets `table[cell]` or none is left. */
  private search(table: Int16Array, cell: number): void {
    const { popped, cameFrom, cameBy, closed, firstOn, firstFacing } = this;
    let { queue, head, tail } = this;
    while (table[cell] === -1 && head < tail) {
      const state = queue[head++]!;
      popped[state] = 1;
      const d = state & 3;
      const at = state >> 2;
      if (firstOn[at] === -1) firstOn[at] = state;
      const ahead = at + STEP[d]!;
      if (firstFacing[ahead] === -1) firstFacing[ahead] = state;
      if (tail + 3 > queue.length) {
        const grown = new Int16Array(queue.length * 2);
        grown.set(queue);
        queue = grown;
        this.queue = grown;
      }
      // forward, then left, then right, as AgentGym tries them
      const forward = ahead * 4 + d;
      if (!closed[ahead] && !popped[forward]) {
        queue[tail++] = forward;
        cameFrom[forward] = state;
        cameBy[forward] = PRIMITIVES.forward;
      }
      if (!closed[at]) {
        const left = at * 4 + ((d + 3) & 3);
        if (!popped[left]) {
          queue[tail++] = left;
          cameFrom[left] = state;
          cameBy[left] = PRIMITIVES.left;
        }
        const right = at * 4 + ((d + 1) & 3);
        if (!popped[right]) {
          queue[tail++] = right;
          cameFrom[right] = state;
          cameBy[right] = PRIMITIVES.right;
        }
      }
    }
    this.head = head;
    this.tail = tail;
  }

  private pathOf(state: number): Primitive[] {
    let length = 0;
    for (let at = state; at !== this.start; at = this.cameFrom[at]!) length++;
    const path = new Array<Primitive>(length);
    for (let at = state; at !== this.start; at = this.cameFrom[at]!)
      path[--length] = this.cameBy[at] as Primitive;
    return path;
  }
}

const finder = new PathFinder();
/** Objects counted by name id, one block of counts per numbering AgentGym keeps. */
const counts = new Int32Array(NAME_COUNT * 4);
const [DESCRIBED_K, PICKUP_K, DOOR_K, GO_TO_K] = [0, NAME_COUNT, NAME_COUNT * 2, NAME_COUNT * 3];

/** The text view of `game`'s current state, given its observation image. */
export function describe(game: Game, image: Uint8Array): TextView {
  const size = VIEW_SIZE;
  const px = game.agentPos[0];
  const py = game.agentPos[1];
  const dir = game.agentDir;
  const fx = DX[dir]!;
  const fy = DY[dir]!;
  const rx = DX[(dir + 1) % 4]!;
  const ry = DY[(dir + 1) % 4]!;
  const topX = px + fx * (size - 1) - rx * (size >> 1);
  const topY = py + fy * (size - 1) - ry * (size >> 1);
  finder.reset(
    planningRange(topX, topX + size * (rx - fx)),
    planningRange(topY, topY + size * (ry - fy)),
    px,
    py,
    dir,
  );
  counts.fill(0);

  const seen: Seen[] = [];
  /** The nearest wall or box straight ahead (AgentGym's first barrier). */
  let barrier: string | undefined;
  let barrierDis = 0;
  for (let v = 0; v < VIEW_AT.length; v++) {
    const at = VIEW_AT[v]!;
    const front = VIEW_FRONT[v]!;
    const right = VIEW_RIGHT[v]!;
    const x = px + fx * front + rx * right;
    const y = py + fy * front + ry * right;
    if (x < 0 || y < 0) continue;
    const type = image[at]!;
    const info = NAMES[(type * COLORS.length + image[at + 1]!) * DOOR_STATES.length + image[at + 2]!];
    if (info !== undefined) {
      seen.push({ info, x, y, front, right });
      if (info.blocks) finder.block(x, y);
    }
    if ((type === BOX || type === WALL) && right === 0 && barrier === undefined) {
      barrier = type === BOX ? 'box' : 'wall';
      barrierDis = front;
    }
  }

  let description: string;
  if (seen.length > 0) {
    description = 'In front of you in this room, you can see several objects: ';
    for (const o of seen) {
      if (o.info.wall) continue;
      const f = o.front;
      const r = o.right;
      const where =
        r === 0
          ? `right in front of you ${f} steps away. `
          : r > 0
            ? `${f} steps in front of you and ${r} steps to your right. `
            : `${f} steps in front of you and ${-r} steps to your left. `;
      description += `There is a ${o.info.name} ${++counts[DESCRIBED_K + o.info.id]!} ${where} `;
    }
  } else {
    description = 'You cannot see any objects within sight.';
  }
  description += 'The room has walls around you. ';
  if (barrier !== undefined) description += `You are facing a ${barrier} ${barrierDis} steps away. `;
  const carrying = game.carrying;
  description +=
    carrying === null
      ? 'You are not carrying anything.'
      : `You are carrying a ${carrying.color} ${carrying.type}.`;

  const actions = new Map<string, Primitive[]>([
    ['turn left', [PRIMITIVES.left]],
    ['turn right', [PRIMITIVES.right]],
  ]);
  const errors = new Map<string, string>();
  const targets = new Map<string, readonly [number, number]>();
  const offer = (command: string, primitives: Primitive[], o: Seen) => {
    actions.set(command, primitives);
    targets.set(command, [o.x, o.y]);
  };

  if (barrier === undefined || barrierDis > 1) actions.set('move forward', [PRIMITIVES.forward]);
  else errors.set('move forward', "There is a barrier in front of you, you can't move forward.");

  if (carrying === null) {
    // `pickup <name> <k>`: k counts the reachable ones, once the first of that name was reachable.
    for (const o of seen) {
      const { name, id, wall, door, goal } = o.info;
      if (wall || door || goal) continue;
      const path = finder.pathTo(o.x, o.y, false);
      const k = counts[PICKUP_K + id]! + 1;
      if (path !== null) {
        path.push(PRIMITIVES.pickup);
        counts[PICKUP_K + id] = k;
        offer(`pickup ${name} ${k}`, path, o);
      } else {
        errors.set(
          `pickup ${name} ${k}`,
          `You cannot pickup ${name} ${k}, as there is no path leading to it.`,
        );
      }
    }
  }

  if (carrying !== null) {
    const dropX = px + fx;
    const dropY = py + fy;
    const occupied = seen.some((o) => o.x === dropX && o.y === dropY && o.info.blocks);
    if (!occupied) actions.set('drop', [PRIMITIVES.drop]);
    else errors.set('drop', 'You cannot drop the object, as there is already an object in front of you.');
  } else {
    errors.set('drop', 'You cannot drop the object, as you are not carrying anything.');
  }

  for (let index = 0; index < seen.length; index++) {
    const o = seen[index]!;
    const { name, id, door } = o.info;
    if (!door) continue;
    const k = ++counts[DOOR_K + id]!;
    if (o.info.openDoor) {
      const path = finder.pathTo(o.x, o.y, true);
      const command = `go through ${name} ${k}`;
      if (path !== null) offer(command, path, o);
      else errors.set(command, `You cannot go through ${name} ${k}, as there is no path leading to it.`);
    }
    if (o.info.closedDoor) {
      const path = finder.pathTo(o.x, o.y, false);
      const command = `toggle and go through ${name} ${k}`;
      if (path !== null) offer(command, [...path, PRIMITIVES.toggle, PRIMITIVES.forward], o);
      else
        errors.set(
          command,
          `You cannot toggle and go through ${name} ${pythonDict(doorCounts(seen, index))}, as there is no path leading to it.`,
        );
      if (path !== null && path.length === 0) actions.set('toggle', [PRIMITIVES.toggle]);
      errors.set(
        `go through ${name} ${k}`,
        `You cannot go through ${name} ${k}, as it is closed. You should toggle it first.`,
      );
    }
    if (o.info.lockedDoor) {
      const command = `toggle and go through ${name} ${k}`;
      if (carrying === null || carrying.type !== 'key') {
        errors.set(command, `You cannot toggle and go through ${name} ${k}, as you are not carrying a key.`);
        continue;
      }
      if (carrying.color !== o.info.color) {
        errors.set(
          command,
          `You cannot toggle and go through ${name} ${k}, as the color of the key you are carrying does not match the color of door.`,
        );
        continue;
      }
      const path = finder.pathTo(o.x, o.y, false);
      if (path !== null) offer(command, [...path, PRIMITIVES.toggle, PRIMITIVES.forward], o);
      else
        errors.set(
          command,
          `You cannot toggle and go through ${name} ${pythonDict(doorCounts(seen, index))}, as there is no path leading to it.`,
        );
      if (path !== null && path.length === 0) actions.set('toggle', [PRIMITIVES.toggle]);
    }
  }

  for (const o of seen) {
    if (!o.info.goal) continue;
    const path = finder.pathTo(o.x, o.y, true);
    if (path !== null) offer('go to goal', path, o);
    else errors.set('go to goal', 'You cannot go to the goal, as there is no path leading to it.');
  }

  // `go to <name> <k>`, numbered as the pickups are.
  for (const o of seen) {
    const { name, id, wall, goal } = o.info;
    if (wall || goal) continue;
    const path = finder.pathTo(o.x, o.y, false);
    const k = counts[GO_TO_K + id]! + 1;
    if (path !== null) {
      counts[GO_TO_K + id] = k;
      offer(`go to ${name} ${k}`, path, o);
    } else {
      errors.set(`go to ${name} ${k}`, `You cannot go to ${name} ${k}, as there is no path leading to it.`);
    }
  }

  actions.set('check available actions', []);
  return { description, actions, errors, targets };
}
