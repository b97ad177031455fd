// AgentGym's text view of a BabyAI state (`BabyAI.postprocess_obs` and `find_path` in AgentGym's
// `agentenv-babyai/agentenv_babyai/environment.py`): the description of what the agent sees, the
// commands it may give with the primitive actions each one expands to, and the refusal for each
// command it knows to be impossible. Every string, count and quirk is the original's.
import type { Game } from './game';
import { COLORS, DIR_TO_VEC, DOOR_STATES, OBJECT_TYPES, PRIMITIVES, type Primitive } from './world';

interface Seen {
  readonly name: string;
  readonly x: number;
  readonly y: number;
  readonly dis: number;
}

export interface TextView {
  readonly description: string;
  /** Commands in AgentGym's order, each with its primitive actions. */
  readonly actions: Map<string, Primitive[]>;
  /** AgentGym's refusal for commands it knows but cannot do now. */
  readonly errors: Map<string, string>;
  /** Where each object command leads: the cell of its object (for the oracle and plan steps). */
  readonly targets: Map<string, readonly [number, number]>;
}

const DESCRIBED = new Set(['door', 'key', 'ball', 'box', 'goal', 'lava', 'wall']);
const BLOCKING = ['wall', 'box', 'lava', 'ball', 'key'];
const blocks = (name: string) => BLOCKING.some((kind) => name.includes(kind));

/** Python's `str(dict)` of a name → count dict, which one AgentGym message prints by mistake. */
const pythonDict = (counts: Map<string, number>) =>
  `{${[...counts].map(([name, count]) => `'${name}': ${count}`).join(', ')}}`;

/** Python's `range(a, b)` bounds as AgentGym computes the planning area around the view. */
function planningRange(corner: number, border: number): readonly [number, number] {
  return border < corner ? [border, corner + 1] : [corner, border];
}

/**
 * AgentGym's BFS over (cell, direction) inside the planning area, with forward/left/right moves; the
 * cells of visible walls, boxes, lava, balls and keys block. Ported with its quirks: a state counts as
 * visited only once popped, and a later push overwrites the way a queued state was reached, so a path
 * is not always a shortest one.
 */
function findPath(
  start: readonly [number, number],
  startDir: number,
  goal: readonly [number, number],
  blocked: ReadonlySet<number>,
  xr: readonly [number, number],
  yr: readonly [number, number],
  arrive: boolean,
): Primitive[] | null {
  // States are numbered inside the planning area (which holds the agent): ((y * width) + x) * 4 + d.
  const width = xr[1] - xr[0];
  const states = width * (yr[1] - yr[0]) * 4;
  const stateOf = (x: number, y: number, d: number) => ((y - yr[0]) * width + (x - xr[0])) * 4 + d;
  const popped = new Uint8Array(states);
  const cameFrom = new Int32Array(states);
  const cameBy = new Uint8Array(states);
  const startState = stateOf(start[0], start[1], startDir);
  const queue: number[] = [startState];
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    popped[state] = 1;
    const d = state & 3;
    const cell = state >> 2;
    const x = xr[0] + (cell % width);
    const y = yr[0] + Math.floor(cell / width);
    const [dx, dy] = DIR_TO_VEC[d]!;
    const reached = arrive ? x === goal[0] && y === goal[1] : goal[0] - x === dx && goal[1] - y === dy;
    if (reached) {
      const path: Primitive[] = [];
      for (let at = state; at !== startState; at = cameFrom[at]!) path.push(cameBy[at] as Primitive);
      return path.reverse();
    }
    for (const action of [PRIMITIVES.forward, PRIMITIVES.left, PRIMITIVES.right] as const) {
      let nx = x;
      let ny = y;
      let nd = d;
      if (action === PRIMITIVES.left) nd = (d + 3) % 4;
      else if (action === PRIMITIVES.right) nd = (d + 1) % 4;
      else {
        nx = x + dx;
        ny = y + dy;
      }
      if (nx < xr[0] || nx >= xr[1] || ny < yr[0] || ny >= yr[1]) continue;
      const next = stateOf(nx, ny, nd);
      if (popped[next] || blocked.has((nx + 64) * 256 + (ny + 64))) continue;
      queue.push(next);
      cameFrom[next] = state;
      cameBy[next] = action;
    }
  }
  return null;
}

/** The text view of `game`'s current state, given its observation image. */
export function describe(game: Game, image: Uint8Array): TextView {
  const size = 7;
  const [px, py] = game.agentPos;
  const dir = game.agentDir;
  const [fx, fy] = DIR_TO_VEC[dir]!;
  const [rx, ry] = DIR_TO_VEC[(dir + 1) % 4]!;
  const topX = px + fx * (size - 1) - rx * (size >> 1);
  const topY = py + fy * (size - 1) - ry * (size >> 1);
  const xr = planningRange(topX, topX + size * (rx - fx));
  const yr = planningRange(topY, topY + size * (ry - fy));

  const seen: Seen[] = [];
  const barriers: Seen[] = [];
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const x = topX - fx * j + rx * i;
      const y = topY - fy * j + ry * i;
      const distance = Math.abs(px - x) + Math.abs(py - y);
      if (x < 0 || y < 0 || distance === 0) continue;
      const at = (i * size + j) * 3;
      const type = OBJECT_TYPES[image[at]!]!;
      if (DESCRIBED.has(type)) {
        const color = COLORS[image[at + 1]!]!;
        const name = type === 'door' ? `${color} ${DOOR_STATES[image[at + 2]!]} door` : `${color} ${type}`;
        seen.push({ name, x, y, dis: distance });
      }
      if (type === 'box' || type === 'wall') {
        const relX = x - px;
        const relY = y - py;
        if (fx * relY - fy * relX === 0) barriers.push({ name: type, x, y, dis: fx * relX + fy * relY });
      }
    }
  }
  seen.sort((a, b) => a.dis - b.dis);
  barriers.sort((a, b) => a.dis - b.dis);
  const front = (o: Seen) => fx * (o.x - px) + fy * (o.y - py);
  const right = (o: Seen) => rx * (o.x - px) + ry * (o.y - py);

  let description: string;
  if (seen.length > 0) {
    description = 'In front of you in this room, you can see several objects: ';
    const counts = new Map<string, number>();
    for (const o of seen) {
      if (o.name.includes('wall')) continue;
      const f = front(o);
      const r = right(o);
      const where =
        r === 0
          ? `right in front of you ${f} steps away. `
          : r > 0
            ? `${f} steps in front of you and ${r} steps to your right. `
            : `${f} steps in front of you and ${-r} steps to your left. `;
      counts.set(o.name, (counts.get(o.name) ?? 0) + 1);
      description += `There is a ${o.name} ${counts.get(o.name)} ${where} `;
    }
  } else {
    description = 'You cannot see any objects within sight.';
  }
  description += 'The room has walls around you. ';
  const nearestBarrier = barriers[0];
  if (nearestBarrier !== undefined) {
    description += `You are facing a ${nearestBarrier.name} ${nearestBarrier.dis} steps away. `;
  }
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
  const blocked = new Set<number>();
  for (const o of [...seen, ...barriers]) if (blocks(o.name)) blocked.add((o.x + 64) * 256 + (o.y + 64));
  const pathTo = (o: Seen, arrive: boolean) =>
    findPath(game.agentPos, dir, [o.x, o.y], blocked, xr, yr, arrive);
  const offer = (command: string, primitives: Primitive[], o: Seen) => {
    actions.set(command, primitives);
    targets.set(command, [o.x, o.y]);
  };

  if (nearestBarrier === undefined || nearestBarrier.dis > 1)
    actions.set('move forward', [PRIMITIVES.forward]);
  else errors.set('move forward', "There is a barrier in front of you, you can't move forward.");

  if (carrying === null) {
    const counts = new Map<string, number>();
    for (const o of seen) {
      if (o.name.includes('wall') || o.name.includes('door') || o.name.includes('goal')) continue;
      const path = pathTo(o, false);
      const first = `pickup ${o.name} 1`;
      if (path !== null) {
        path.push(PRIMITIVES.pickup);
        const k = actions.has(first) ? (counts.get(o.name) ?? 0) + 1 : 1;
        counts.set(o.name, k);
        offer(`pickup ${o.name} ${k}`, path, o);
      } else if (!actions.has(first)) {
        errors.set(first, `You cannot pickup ${o.name} 1, as there is no path leading to it.`);
      } else {
        const k = (counts.get(o.name) ?? 0) + 1;
        errors.set(
          `pickup ${o.name} ${k}`,
          `You cannot pickup ${o.name} ${k}, as there is no path leading to it.`,
        );
      }
    }
  }

  if (carrying !== null) {
    const [dropX, dropY] = [px + fx, py + fy];
    const occupied = seen.some((o) => o.x === dropX && o.y === dropY && blocks(o.name));
    if (!occupied) actions.set('drop', [PRIMITIVES.drop]);
    else errors.set('drop', 'You cannot drop the object, as there is already an object in front of you.');
  } else {
    errors.set('drop', 'You cannot drop the object, as you are not carrying anything.');
  }

  const doors = new Map<string, number>();
  for (const o of seen) {
    if (o.name.includes('door')) doors.set(o.name, (doors.get(o.name) ?? 0) + 1);
    const k = doors.get(o.name);
    if (o.name.includes('open door')) {
      const path = pathTo(o, true);
      const command = `go through ${o.name} ${k}`;
      if (path !== null) offer(command, path, o);
      else errors.set(command, `You cannot go through ${o.name} ${k}, as there is no path leading to it.`);
    }
    if (o.name.includes('closed door')) {
      const path = pathTo(o, false);
      const command = `toggle and go through ${o.name} ${k}`;
      if (path !== null) offer(command, [...path, PRIMITIVES.toggle, PRIMITIVES.forward], o);
      else
        errors.set(
          command,
          `You cannot toggle and go through ${o.name} ${pythonDict(doors)}, as there is no path leading to it.`,
        );
      if (path !== null && path.length === 0) actions.set('toggle', [PRIMITIVES.toggle]);
      errors.set(
        `go through ${o.name} ${k}`,
        `You cannot go through ${o.name} ${k}, as it is closed. You should toggle it first.`,
      );
    }
    if (o.name.includes('locked door')) {
      const command = `toggle and go through ${o.name} ${k}`;
      if (carrying === null || carrying.type !== 'key') {
        errors.set(
          command,
          `You cannot toggle and go through ${o.name} ${k}, as you are not carrying a key.`,
        );
        continue;
      }
      if (carrying.color !== o.name.split(' ')[0]) {
        errors.set(
          command,
          `You cannot toggle and go through ${o.name} ${k}, as the color of the key you are carrying does not match the color of door.`,
        );
        continue;
      }
      const path = pathTo(o, false);
      if (path !== null) offer(command, [...path, PRIMITIVES.toggle, PRIMITIVES.forward], o);
      else
        errors.set(
          command,
          `You cannot toggle and go through ${o.name} ${pythonDict(doors)}, as there is no path leading to it.`,
        );
      if (path !== null && path.length === 0) actions.set('toggle', [PRIMITIVES.toggle]);
    }
  }

  for (const o of seen) {
    if (!o.name.includes('goal')) continue;
    const path = pathTo(o, true);
    if (path !== null) offer('go to goal', path, o);
    else errors.set('go to goal', 'You cannot go to the goal, as there is no path leading to it.');
  }

  const goTo = new Map<string, number>();
  for (const o of seen) {
    if (o.name.includes('wall') || o.name.includes('goal')) continue;
    const path = pathTo(o, false);
    const first = `go to ${o.name} 1`;
    if (path !== null) {
      const k = actions.has(first) ? (goTo.get(o.name) ?? 0) + 1 : 1;
      goTo.set(o.name, k);
      offer(`go to ${o.name} ${k}`, path, o);
    } else if (!actions.has(first)) {
      errors.set(first, `You cannot go to ${o.name} 1, as there is no path leading to it.`);
    } else {
      const k = (goTo.get(o.name) ?? 0) + 1;
      errors.set(
        `go to ${o.name} ${k}`,
        `You cannot go to ${o.name} ${k}, as there is no path leading to it.`,
      );
    }
  }

  actions.set('check available actions', []);
  return { description, actions, errors, targets };
}
