// Regenerates test/fixtures/minigrid-held-and-boxed.jsonl: episodes of the two levels whose start
// state holds more than the grid (KeyInBox: a key inside a box; PutNextS7N4Carrying: the agent starts
// with its load), plus one start state further into an episode (`step_count`), played by Minigrid
// v2.3.1 itself through reference/drive-minigrid.py. The primitive actions are planned on our engine
// (walk to the box, open it, take the key, unlock the door; drop the load away from its target, take
// it again and drop it next to the target) and then played on Minigrid, which records what happens.
// Each state keeps the agent, the carried object, the 7×7 image, reward, terminated, truncated and a
// SHA-1 of the whole grid (the fixture stays small). Needs the reference venv (reference/setup.sh).
//   node --conditions=@pilotrl/source --import tsx packages/env-babyai/reference/generate-fixtures.ts
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRng } from '@pilotrl/core';
import { Game } from '../src/game';
import { parseLevelState } from '../src/level';
import { canOverlap, DIR_TO_VEC, PRIMITIVES, type WorldObject } from '../src/world';
import { driveMinigrid, type MinigridJob, type PrimitiveName } from './client';

type Turn = 'left' | 'right' | 'forward';

/** Shortest turns and moves after which the agent faces one of `targets` (none: null). */
function face(game: Game, targets: readonly (readonly [number, number])[]): Turn[] | null {
  const key = (x: number, y: number, d: number) => `${x},${y},${d}`;
  const wanted = new Set(targets.map(([x, y]) => `${x},${y}`));
  const start = { x: game.agentPos[0], y: game.agentPos[1], d: game.agentDir, path: [] as Turn[] };
  const seen = new Set([key(start.x, start.y, start.d)]);
  const queue = [start];
  while (queue.length > 0) {
    const { x, y, d, path } = queue.shift()!;
    const [dx, dy] = DIR_TO_VEC[d]!;
    if (wanted.has(`${x + dx},${y + dy}`)) return path;
    const front = game.grid.inside(x + dx, y + dy) ? game.grid.get(x + dx, y + dy) : undefined;
    const moves: [Turn, number, number, number][] = [
      ['left', x, y, (d + 3) % 4],
      ['right', x, y, (d + 1) % 4],
    ];
    if (front === null || (front !== undefined && canOverlap(front)))
      moves.push(['forward', x + dx, y + dy, d]);
    for (const [turn, nx, ny, nd] of moves) {
      if (seen.has(key(nx, ny, nd))) continue;
      seen.add(key(nx, ny, nd));
      queue.push({ x: nx, y: ny, d: nd, path: [...path, turn] });
    }
  }
  return null;
}

/** Plays `actions` on `game` and appends them to `log`. */
function play(game: Game, log: PrimitiveName[], actions: readonly PrimitiveName[]): void {
  for (const action of actions) {
    game.step(PRIMITIVES[action]);
    log.push(action);
  }
}

const cellsWhere = (game: Game, test: (o: WorldObject | null, x: number, y: number) => boolean) => {
  const cells: [number, number][] = [];
  for (let y = 0; y < game.grid.height; y++)
    for (let x = 0; x < game.grid.width; x++) if (test(game.grid.get(x, y), x, y)) cells.push([x, y]);
  return cells;
};

/** KeyInBox: open the box, take the key it held, unlock and open the door. */
function keyInBoxPlan(game: Game): PrimitiveName[] {
  const log: PrimitiveName[] = [];
  const box = cellsWhere(game, (o) => o?.type === 'box' && o.contains !== null);
  play(game, log, [...face(game, box)!, 'toggle', 'pickup']);
  const door = cellsWhere(game, (o) => o?.type === 'door' && o.isLocked);
  play(game, log, [...face(game, door)!, 'toggle']);
  return log;
}

/** PutNextS7N4Carrying: drop the load away from the target, take it again, drop it next to the target. */
function carryingPlan(game: Game): PrimitiveName[] {
  const log: PrimitiveName[] = [];
  const fixed = game.instr.kind === 'PutNextInstr' ? game.instr.fixed.objPoss : [];
  const nextToFixed = (x: number, y: number) =>
    fixed.some(([fx, fy]) => Math.abs(fx - x) + Math.abs(fy - y) === 1);
  const [ax, ay] = game.agentPos;
  const away = cellsWhere(
    game,
    (o, x, y) => o === null && !nextToFixed(x, y) && Math.abs(x - ax) + Math.abs(y - ay) === 1,
  );
  play(game, log, [...face(game, away)!, 'drop', 'pickup']);
  const target = cellsWhere(game, (o, x, y) => o === null && nextToFixed(x, y));
  play(game, log, [...face(game, target)!, 'drop']);
  return log;
}

const POOL: readonly PrimitiveName[] = ['left', 'right', 'forward', 'forward', 'pickup', 'drop', 'toggle'];
const random = (id: string, n: number) => {
  const rng = createRng(id);
  return Array.from({ length: n }, () => rng.pick(POOL));
};

const plans: { level: string; seed: number; step_count?: number; plan: (game: Game) => PrimitiveName[] }[] = [
  { level: 'BabyAI-KeyInBox-v0', seed: 1, plan: keyInBoxPlan },
  { level: 'BabyAI-KeyInBox-v0', seed: 2, plan: keyInBoxPlan },
  { level: 'BabyAI-KeyInBox-v0', seed: 3, step_count: 300, plan: keyInBoxPlan },
  { level: 'BabyAI-KeyInBox-v0', seed: 4, plan: () => random('KeyInBox/4', 24) },
  { level: 'BabyAI-PutNextS7N4Carrying-v0', seed: 1, plan: carryingPlan },
  { level: 'BabyAI-PutNextS7N4Carrying-v0', seed: 2, plan: carryingPlan },
  { level: 'BabyAI-PutNextS7N4Carrying-v0', seed: 3, plan: () => random('Carrying/3', 24) },
];

// First the start states (Minigrid's), then the plans made on our engine from them, then the replay.
const id = (p: (typeof plans)[number]) =>
  `${p.level}/${p.seed}${p.step_count === undefined ? '' : `/step_count=${p.step_count}`}`;
const starts = await driveMinigrid(
  plans.map((p) => ({ id: id(p), level: p.level, seed: p.seed, actions: [], step_count: p.step_count })),
);
const jobs: MinigridJob[] = plans.map((p, k) => ({
  id: id(p),
  level: p.level,
  seed: p.seed,
  step_count: p.step_count,
  actions: p.plan(new Game(parseLevelState(starts[k]!.start, id(p)))),
}));
const episodes = await driveMinigrid(jobs);
const sha1 = (rows: readonly string[]) => createHash('sha1').update(rows.join('\n')).digest('hex');
const lines = episodes.map((episode) => {
  if (episode.unsupported.length > 0) throw new Error(`${episode.id}: ${episode.unsupported.join(', ')}`);
  const states = episode.states.map(({ grid, mission: _, ...state }) => ({
    ...state,
    grid_sha1: sha1(grid),
  }));
  return JSON.stringify({ id: episode.id, start: episode.start, states });
});
const dir = join(import.meta.dirname, '../test/fixtures');
mkdirSync(dir, { recursive: true });
const file = join(dir, 'minigrid-held-and-boxed.jsonl');
writeFileSync(file, `${lines.join('\n')}\n`);
console.log(
  `wrote ${lines.length} episodes (${episodes.reduce((n, e) => n + e.states.length - 1, 0)} actions) to ${file}`,
);
for (const episode of episodes) {
  const last = episode.states.at(-1)!;
  console.log(
    `  ${episode.id}: ${episode.states.length - 1} actions, reward ${last.reward}, terminated ${last.terminated}`,
  );
}
