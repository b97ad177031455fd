// The oracle: plans with full knowledge of the grid, then plays AgentGym's commands. A planner in
// the spirit of BabyAI's bot turns the instruction into subgoals (fetch a key for a locked door,
// free the hands, go next to an object, pick it up, open a door, put one object next to another)
// and finds primitive paths by BFS over (cell, direction), opening doors on the way. Each command
// is then the admissible one after which the plan left is shortest (a `go to …` macro covers many
// primitives), falling back to the plan's next primitive.
import { AgentGymBabyAI } from './agentgym';
import type { Game } from './game';
import type { LevelState } from './level';
import type { Instr } from './verifier';
import { canPickup, DIR_TO_VEC, PRIMITIVES, type Primitive, type WorldObject } from './world';

type Pos = readonly [number, number];

const passable = (game: Game, x: number, y: number): Primitive[] | undefined => {
  if (!game.grid.inside(x, y)) return undefined;
  const cell = game.grid.get(x, y);
  if (cell === null || cell.type === 'goal' || cell.type === 'floor') return [PRIMITIVES.forward];
  if (cell.type !== 'door') return undefined;
  if (cell.isOpen) return [PRIMITIVES.forward];
  if (!cell.isLocked) return [PRIMITIVES.toggle, PRIMITIVES.forward];
  const key = game.carrying;
  return key?.type === 'key' && key.color === cell.color
    ? [PRIMITIVES.toggle, PRIMITIVES.forward]
    : undefined;
};

/** BFS over (cell, direction) to a state where `done(front cell)` holds; doors open on the way. */
function navigate(game: Game, done: (front: Pos) => boolean): Primitive[] | null {
  const { width } = game.grid;
  const key = (x: number, y: number, d: number) => (y * width + x) * 4 + d;
  const came = new Map<number, { from: number; primitives: Primitive[] }>();
  const start = key(game.agentPos[0], game.agentPos[1], game.agentDir);
  came.set(start, { from: -1, primitives: [] });
  const queue: [number, number, number][] = [[game.agentPos[0], game.agentPos[1], game.agentDir]];
  for (let head = 0; head < queue.length; head++) {
    const [x, y, d] = queue[head]!;
    const [dx, dy] = DIR_TO_VEC[d]!;
    if (done([x + dx, y + dy])) {
      const path: Primitive[] = [];
      for (let at = key(x, y, d); at !== start; ) {
        const step = came.get(at)!;
        path.unshift(...step.primitives);
        at = step.from;
      }
      return path;
    }
    const moves: [number, number, number, Primitive[] | undefined][] = [
      [x, y, (d + 3) % 4, [PRIMITIVES.left]],
      [x, y, (d + 1) % 4, [PRIMITIVES.right]],
      [x + dx, y + dy, d, passable(game, x + dx, y + dy)],
    ];
    for (const [nx, ny, nd, primitives] of moves) {
      if (primitives === undefined || came.has(key(nx, ny, nd))) continue;
      came.set(key(nx, ny, nd), { from: key(x, y, d), primitives });
      queue.push([nx, ny, nd]);
    }
  }
  return null;
}

/** Plays `primitives` on `game` and returns them (so plans read as sequences). */
function run(game: Game, primitives: readonly Primitive[]): Primitive[] {
  for (const primitive of primitives) game.step(primitive);
  return [...primitives];
}

const facing = (targets: readonly Pos[]) => (front: Pos) =>
  targets.some(([x, y]) => x === front[0] && y === front[1]);

const positionsOf = (game: Game, objects: readonly WorldObject[]): Pos[] =>
  objects.filter((o) => o !== game.carrying && o.curPos !== null).map((o) => o.curPos!);

/** Drops what the agent carries on a free cell next to it (moving to one if need be). */
function emptyHands(game: Game, avoid?: Pos): Primitive[] | null {
  if (game.carrying === null) return [];
  const free = ([x, y]: Pos) =>
    game.grid.inside(x, y) && game.grid.get(x, y) === null && !(avoid?.[0] === x && avoid[1] === y);
  const path = navigate(game, free);
  return path === null ? null : run(game, [...path, PRIMITIVES.drop]);
}

/** Goes to face `targets`; when a locked door is in the way, fetches its key first. */
function reach(game: Game, targets: readonly Pos[]): Primitive[] | null {
  const direct = navigate(game, facing(targets));
  if (direct !== null) return run(game, direct);
  const lockedColors = new Set(
    game.grid.cells.filter((c) => c?.type === 'door' && c.isLocked).map((c) => c!.color),
  );
  for (const color of lockedColors) {
    if (game.carrying?.type === 'key' && game.carrying.color === color) continue;
    const keys = game.grid.cells.filter((c): c is WorldObject => c?.type === 'key' && c.color === color);
    const trial = game.clone();
    const drop = emptyHands(trial);
    const fetch = drop === null ? null : navigate(trial, facing(positionsOf(trial, keys)));
    if (fetch === null) continue;
    run(trial, [...fetch, PRIMITIVES.pickup]);
    if (navigate(trial, facing(targets)) === null) continue;
    const plan = [...drop!, ...fetch, PRIMITIVES.pickup];
    run(game, plan);
    return [...plan, ...run(game, navigate(game, facing(targets))!)];
  }
  return clearTheWay(game, targets);
}

/** When objects wall the target in, carries one of them elsewhere (as BabyAI's bot does). */
function clearTheWay(game: Game, targets: readonly Pos[]): Primitive[] | null {
  const movable = game.grid.cells.filter(
    (c): c is WorldObject => c !== null && (c.type === 'key' || c.type === 'ball' || c.type === 'box'),
  );
  for (const blocker of movable) {
    const trial = game.clone();
    const from = blocker.curPos!;
    const before = emptyHands(trial);
    const fetch = before === null ? null : navigate(trial, facing([from]));
    if (fetch === null) continue;
    run(trial, [...fetch, PRIMITIVES.pickup]);
    const after = emptyHands(trial, from);
    const onward = after === null ? null : navigate(trial, facing(targets));
    if (onward === null) continue;
    const plan = [...before!, ...fetch, PRIMITIVES.pickup, ...after!];
    run(game, plan);
    return [...plan, ...run(game, onward)];
  }
  return null;
}

/** The leaf instructions still to do, in an order that satisfies the sequencing. */
function remaining(instr: Instr): Instr[] {
  if (instr.kind === 'BeforeInstr' || instr.kind === 'AfterInstr' || instr.kind === 'AndInstr') {
    const [first, second, firstDone, secondDone] =
      instr.kind === 'AfterInstr'
        ? [instr.b, instr.a, instr.bDone, instr.aDone]
        : [instr.a, instr.b, instr.aDone, instr.bDone];
    return [
      ...(firstDone === 'success' ? [] : remaining(first)),
      ...(secondDone === 'success' && instr.kind === 'AndInstr' ? [] : remaining(second)),
    ];
  }
  return [instr];
}

/** Opens the door at `door`'s place on `game` (a copy), fetching its key first when it is locked. */
function openDoor(game: Game, door: WorldObject): Primitive[] | null {
  if (door.curPos === null) return null;
  const holdsKey = game.carrying?.type === 'key' && game.carrying.color === door.color;
  const keys =
    door.isLocked && !holdsKey
      ? game.grid.cells.filter((c): c is WorldObject => c?.type === 'key' && c.color === door.color)
      : [];
  if (door.isLocked && !holdsKey && keys.length === 0) return null;
  const plan: Primitive[] = [];
  if (keys.length > 0) {
    const drop = emptyHands(game);
    if (drop === null) return null;
    plan.push(...drop);
    const fetch = reach(game, positionsOf(game, keys));
    if (fetch === null) return null;
    plan.push(...fetch, ...run(game, [PRIMITIVES.pickup]));
  }
  const approach = reach(game, [door.curPos]);
  if (approach === null) return null;
  plan.push(...approach);
  const front = game.grid.get(...game.frontPos());
  if (front?.type !== 'door') return null;
  // Toggling an open door closes it; the second toggle opens it again, which the verifier counts.
  return [...plan, ...run(game, front.isOpen ? [PRIMITIVES.toggle, PRIMITIVES.toggle] : [PRIMITIVES.toggle])];
}

function planLeaf(game: Game, instr: Instr): Primitive[] | null {
  const chain = (...steps: (() => Primitive[] | null)[]): Primitive[] | null => {
    const plan: Primitive[] = [];
    for (const step of steps) {
      const part = step();
      if (part === null) return null;
      plan.push(...part);
    }
    return plan;
  };
  switch (instr.kind) {
    case 'GoToInstr':
      return reach(game, instr.desc.objPoss);
    case 'OpenInstr': {
      // Any door the description matches will do: plan each on a copy and open the nearest.
      let best: Primitive[] | null = null;
      for (const door of instr.desc.objSet) {
        const plan = openDoor(game.clone(), door);
        if (plan !== null && (best === null || plan.length < best.length)) best = plan;
      }
      return best === null ? null : run(game, best);
    }
    case 'PickupInstr':
      // A description by colour alone also matches walls, which cannot be picked up.
      return chain(
        () => emptyHands(game),
        () => reach(game, positionsOf(game, instr.desc.objSet.filter(canPickup))),
        () => run(game, [PRIMITIVES.pickup]),
      );
    case 'PutNextInstr': {
      const holding = game.carrying !== null && instr.move.objSet.includes(game.carrying);
      const fixed = instr.fixed;
      const beside = (front: Pos) =>
        game.grid.inside(...front) &&
        game.grid.get(...front) === null &&
        fixed.objPoss.some(([x, y]) => Math.abs(x - front[0]) + Math.abs(y - front[1]) === 1);
      return chain(
        () => (holding ? [] : emptyHands(game)),
        () => (holding ? [] : reach(game, positionsOf(game, instr.move.objSet))),
        () => (holding ? [] : run(game, [PRIMITIVES.pickup])),
        () => {
          const path = navigate(game, beside);
          return path === null ? null : run(game, [...path, PRIMITIVES.drop]);
        },
      );
    }
    default:
      return null;
  }
}

/** A primitive plan that completes the instruction from `game`'s state (played on a copy). */
export function planPrimitives(game: Game): Primitive[] | null {
  const copy = game.clone();
  const plan: Primitive[] = [];
  for (const leaf of remaining(copy.instr)) {
    const part = planLeaf(copy, leaf);
    if (part === null) return null;
    plan.push(...part);
  }
  return plan;
}

const PRIMITIVE_COMMANDS: Partial<Record<Primitive, string>> = {
  [PRIMITIVES.left]: 'turn left',
  [PRIMITIVES.right]: 'turn right',
  [PRIMITIVES.forward]: 'move forward',
  [PRIMITIVES.toggle]: 'toggle',
  [PRIMITIVES.drop]: 'drop',
};

const PRIMITIVE_COMMAND_TEXTS = new Set(Object.values(PRIMITIVE_COMMANDS));

/** The command that plays exactly `primitive` now. */
function commandFor(episode: AgentGymBabyAI, primitive: Primitive): string | undefined {
  if (primitive !== PRIMITIVES.pickup) return PRIMITIVE_COMMANDS[primitive];
  const [fx, fy] = episode.game.frontPos();
  for (const [command, primitives] of episode.view.actions) {
    const target = episode.view.targets.get(command);
    if (command.startsWith('pickup ') && primitives.length === 1 && target?.[0] === fx && target[1] === fy) {
      return command;
    }
  }
  return undefined;
}

/**
 * AgentGym commands that win `level` (AgentGym's `done`), at most `maxCommands` of them; an empty
 * list when the planner finds no way (the level is then unsolvable through the text commands, or
 * beyond this planner).
 */
export function solveLevel(level: LevelState, maxCommands = 20): string[] {
  const episode = new AgentGymBabyAI(level);
  const commands: string[] = [];
  while (commands.length < maxCommands) {
    const plan = planPrimitives(episode.game);
    if (plan === null || plan.length === 0) return [];
    let best: { command: string; remaining: number } | undefined;
    let winning: string | undefined;
    for (const command of episode.availableActions()) {
      if (command === 'check available actions') continue;
      const trial = episode.clone();
      if (trial.step(command).done) {
        // A win by a command that names its object says what was done, so a plan can be read off
        // the game (`babyaiPlanOf`); a turn or a step forward that wins as well says nothing.
        winning ??= command;
        if (!PRIMITIVE_COMMAND_TEXTS.has(command)) {
          winning = command;
          break;
        }
        continue;
      }
      const remaining = planPrimitives(trial.game)?.length ?? Number.POSITIVE_INFINITY;
      if (remaining < (best?.remaining ?? plan.length)) best = { command, remaining };
    }
    const command = winning ?? best?.command ?? commandFor(episode, plan[0]!);
    if (command === undefined) return [];
    commands.push(command);
    if (episode.step(command).done) return commands;
  }
  return [];
}

/**
 * Commands of the `primitive` form (one Minigrid action each) that win `level`: the planner's
 * primitive plan played command by command, planned again after each one; an empty list when the
 * planner finds no way or no win within `maxCommands`.
 */
export function solveLevelInPrimitives(level: LevelState, maxCommands: number): string[] {
  const episode = new AgentGymBabyAI(level, 'primitive');
  const commands: string[] = [];
  while (commands.length < maxCommands) {
    const next = planPrimitives(episode.game)?.[0];
    if (next === undefined) return [];
    const command = commandFor(episode, next);
    if (command === undefined || !episode.availableActions().includes(command)) return [];
    commands.push(command);
    if (episode.step(command).done) return commands;
  }
  return [];
}
