import { createRng, InvalidArgumentError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { AgentGymBabyAI } from './agentgym';
import { SHIPPED_LEVEL_LINES } from './data/levels.generated';
import { type InstrSpec, instrDataOf, missionOf } from './generated-instructions';
import { GENERATED_LEVELS, generateLevel } from './generator';
import { babyaiTasks, createBabyaiEnv, GENERATED_SPLIT, generatedTaskOf } from './index';
import { type InstrData, type LevelState, loadLevel, type ObjDescData, parseLevelState } from './level';
import { LEVEL_FAMILIES, maxStepsOf } from './level-families';
import { solveLevel } from './oracle';
import { RoomGrid } from './room-grid';

const SEEDS = 30;

const C = '(?:red|green|blue|purple|yellow|grey)';
const T = '(?:key|ball|box)';
const LOC = '(?:on your left|on your right|in front of you|behind you)';
/** "a"/"the", optional colour, type, optional location: any description the Baby language allows. */
const ANY = `(?:a|the)(?: ${C})? (?:${T}|door)(?: ${LOC})?`;
const GO_TO = `go to (?:a|the)(?: ${C})? (?:${T}|door)`;
const SEQUENCE = `${GO_TO}(?: and ${GO_TO})?`;

/** The missions each family words, as Minigrid's levels word them. */
const MISSIONS: Record<string, RegExp> = {
  'BabyAI-GoToRedBallGrey-v0': /^go to the red ball$/,
  'BabyAI-GoToRedBall-v0': /^go to (a|the) red ball$/,
  'BabyAI-GoToRedBallNoDists-v0': /^go to the red ball$/,
  'BabyAI-GoToObjS6-v0': new RegExp(`^go to the ${C} ${T}$`),
  'BabyAI-GoToLocalS8N7-v0': new RegExp(`^go to (a|the) ${C} ${T}$`),
  'BabyAI-GoToObjMazeS7-v0': new RegExp(`^go to the ${C} ${T}$`),
  'BabyAI-GoToImpUnlock-v0': new RegExp(`^go to (a|the) ${C} ${T}$`),
  'BabyAI-GoToSeqS5R2-v0': new RegExp(`^${SEQUENCE}(?:(?:, then | after you )${SEQUENCE})?$`),
  'BabyAI-GoToRedBlueBall-v0': /^go to the (red|blue) ball$/,
  'BabyAI-GoToDoor-v0': new RegExp(`^go to (a|the) ${C} door$`),
  'BabyAI-GoToObjDoor-v0': new RegExp(`^go to (a|the) ${C} (${T}|door)$`),
  'BabyAI-Open-v0': new RegExp(`^open (a|the) ${C} door$`),
  'BabyAI-OpenRedDoor-v0': /^open the red door$/,
  'BabyAI-OpenDoorLoc-v0': new RegExp(`^open (a|the) door ${LOC}$`),
  'BabyAI-Pickup-v0': new RegExp(`^pick up (a|the) ${C} ${T}$`),
  'BabyAI-PickupLoc-v0': new RegExp(`^pick up (a|the)( ${C})? ${T}( ${LOC})?$`),
  'BabyAI-PickupDistDebug-v0': new RegExp(`^pick up (a|the) (${C} (${T}|object)|${T})$`),
  'BabyAI-PickupAbove-v0': new RegExp(`^pick up the ${C} ${T}$`),
  'BabyAI-PutNextLocalS6N4-v0': new RegExp(`^put the ${C} ${T} next to the ${C} ${T}$`),
  'BabyAI-Unlock-v0': new RegExp(`^open (a|the) ${C} door$`),
  'BabyAI-ActionObjDoor-v0': new RegExp(
    `^(go to (a|the) ${C} (${T}|door)|pick up (a|the) ${C} ${T}|open (a|the) ${C} door)$`,
  ),
  'BabyAI-FindObjS7-v0': new RegExp(`^pick up the ${T}$`),
  'BabyAI-OneRoomS20-v0': /^pick up the ball$/,
  'BabyAI-SynthLoc-v0': new RegExp(
    `^(go to ${ANY}|pick up (?:a|the)(?: ${C})? ${T}(?: ${LOC})?|open (?:a|the)(?: ${C})? door(?: ${LOC})?|put (?:a|the)(?: ${C})? ${T}(?: ${LOC})? next to ${ANY})$`,
  ),
};

/** Families where the agent may have to unlock a door to reach what the instruction names. */
const LOCKED_ROOMS = new Set(['BabyAI-GoToImpUnlock-v0', 'BabyAI-Unlock-v0', 'BabyAI-SynthLoc-v0']);
/** Families that, as in Minigrid, do not check that no object blocks the way to another. */
const MAY_BLOCK = new Set([
  'BabyAI-GoToObjS6-v0',
  'BabyAI-GoToDoor-v0',
  'BabyAI-OpenRedDoor-v0',
  'BabyAI-OpenDoorLoc-v0',
  'BabyAI-PickupDistDebug-v0',
  'BabyAI-PickupAbove-v0',
  'BabyAI-ActionObjDoor-v0',
  'BabyAI-FindObjS7-v0',
  'BabyAI-OneRoomS20-v0',
  'BabyAI-SynthLoc-v0',
]);

/** Oracle wins within AgentGym's 20 commands, of seeds 0-29, at least. A few maze levels need more. */
const MIN_ORACLE_WINS: Record<string, number> = {
  'BabyAI-GoToObjMazeS7-v0': 27,
  'BabyAI-SynthLoc-v0': 27,
};

const shippedLevels = SHIPPED_LEVEL_LINES.map((line) => parseLevelState(JSON.parse(line)));

function descriptionsOf(instr: InstrData): ObjDescData[] {
  if ('a' in instr) return [...descriptionsOf(instr.a), ...descriptionsOf(instr.b)];
  return 'move' in instr ? [instr.move, instr.fixed] : [instr.desc];
}

/**
 * Cells the agent can step onto or face from its start, walking over empty cells and doors
 * (locked ones only with `throughLocked`), and over objects only with `throughObjects` (it may move them).
 */
function reachableCells(level: LevelState, throughLocked: boolean, throughObjects: boolean): Set<string> {
  const cell = (x: number, y: number) => level.grid_rows[y]?.split(' ')[x];
  const walked = new Set<string>();
  const faced = new Set<string>();
  const stack: [number, number][] = [[level.agent_pos[0], level.agent_pos[1]]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    const code = cell(x, y);
    faced.add(`${x},${y}`);
    if (code === undefined || walked.has(`${x},${y}`)) continue;
    const passable =
      (x === level.agent_pos[0] && y === level.agent_pos[1]) ||
      code[0] === '1' ||
      (throughObjects && '567'.includes(code[0]!)) ||
      (code[0] === '4' && (throughLocked || code[2] !== '2'));
    if (!passable) continue;
    walked.add(`${x},${y}`);
    stack.push([x + 1, y], [x - 1, y], [x, y + 1], [x, y - 1]);
  }
  return faced;
}

const missionsOf = (levels: readonly LevelState[], name: string) =>
  levels.filter((level) => level.level === name).map((level) => level.mission);

/** A start state as the generator's world, to word and match its instruction again. */
function worldOf(level: LevelState): RoomGrid {
  const family = LEVEL_FAMILIES[level.level]!;
  const world = new RoomGrid(createRng(0), family.roomSize, family.rows, family.cols);
  const { grid } = loadLevel(level);
  for (let y = 0; y < grid.height; y++)
    for (let x = 0; x < grid.width; x++) world.grid.set(x, y, grid.get(x, y));
  world.agentPos = level.agent_pos;
  world.agentDir = level.agent_dir;
  return world;
}

/** The instruction of a start state, its descriptions without the positions they matched. */
function specOf(instr: InstrData): InstrSpec {
  const desc = ({ type, color, loc }: ObjDescData) => ({ type, color, loc });
  if ('a' in instr) return { kind: instr.kind, a: specOf(instr.a), b: specOf(instr.b) };
  if ('move' in instr) return { kind: instr.kind, move: desc(instr.move), fixed: desc(instr.fixed) };
  if (instr.kind === 'GoToInstr') return { kind: instr.kind, desc: desc(instr.desc) };
  return { kind: instr.kind, desc: desc(instr.desc), strict: instr.strict ?? false };
}

describe('babyai level generator', () => {
  it('generates the 24 levels of the splits, in AgentGym order', () => {
    expect(GENERATED_LEVELS).toHaveLength(24);
    expect(new Set(GENERATED_LEVELS)).toEqual(new Set(shippedLevels.map((level) => level.level)));
    expect(GENERATED_LEVELS.slice(0, 2)).toEqual(['BabyAI-GoToRedBallGrey-v0', 'BabyAI-GoToRedBall-v0']);
  });

  it("words, matches and times Minigrid's own instructions as Minigrid does, on all 960 shipped levels", () => {
    for (const level of shippedLevels) {
      const world = worldOf(level);
      const instr = specOf(level.instrs);
      expect(missionOf(world, instr), `${level.level} seed ${level.seed}`).toBe(level.mission);
      expect(instrDataOf(world, instr), `${level.level} seed ${level.seed}`).toEqual(level.instrs);
      expect(maxStepsOf(LEVEL_FAMILIES[level.level]!, instr), `${level.level} seed ${level.seed}`).toBe(
        level.max_steps,
      );
    }
  });

  it("accepts with each family's mission pattern every shipped mission of that family", () => {
    for (const name of GENERATED_LEVELS) {
      const shipped = missionsOf(shippedLevels, name);
      expect(shipped.length, name).toBeGreaterThanOrEqual(10);
      for (const mission of shipped) expect(mission, name).toMatch(MISSIONS[name]!);
    }
  });

  describe.each(GENERATED_LEVELS)('%s', (name) => {
    const levels = Array.from({ length: SEEDS }, (_, seed) => generateLevel(name, seed));
    const shipped = shippedLevels.filter((level) => level.level === name);
    const shippedSteps = new Set(shipped.map((level) => level.max_steps));

    it('is deterministic, loads, has the shipped grid size and step limit rule, and words its mission as the family does', () => {
      for (const [seed, level] of levels.entries()) {
        expect(generateLevel(name, seed)).toEqual(level);
        expect(level).toMatchObject({
          level: name,
          seed,
          width: shipped[0]!.width,
          height: shipped[0]!.height,
        });
        expect(parseLevelState(JSON.parse(JSON.stringify(level)))).toEqual(level);
        expect(() => loadLevel(level)).not.toThrow();
        expect(level.mission).toMatch(MISSIONS[name]!);
        // One limit per family, or multiples of one for sentences of several instructions.
        if (shippedSteps.size === 1) expect(level.max_steps).toBe(shipped[0]!.max_steps);
        else expect(level.max_steps % Math.min(...shippedSteps)).toBe(0);
      }
    });

    it('gives different seeds different levels', () => {
      const distinct = new Set(levels.map((level) => JSON.stringify({ ...level, seed: 0 }))).size;
      // The two smallest families have only a few hundred start states.
      expect(distinct).toBeGreaterThanOrEqual(
        name === 'BabyAI-OpenRedDoor-v0' || name === 'BabyAI-GoToObjS6-v0' ? 20 : SEEDS,
      );
    });

    it(`can reach an object of every description in the instruction${LOCKED_ROOMS.has(name) ? ', through locked doors' : ''}${MAY_BLOCK.has(name) ? ', moving objects' : ''}`, () => {
      for (const level of levels) {
        const reached = reachableCells(level, LOCKED_ROOMS.has(name), MAY_BLOCK.has(name));
        const grid = level.grid_rows.map((row) => row.split(' '));
        for (const desc of descriptionsOf(level.instrs)) {
          const objects = desc.obj_poss.filter(([x, y]) => grid[y]![x]![0] !== '2');
          expect(objects.length, level.mission).toBeGreaterThan(0);
          expect(
            objects.some(([x, y]) => reached.has(`${x},${y}`)),
            `${name} seed ${level.seed}: ${level.mission}`,
          ).toBe(true);
        }
      }
    });

    it(`is won by the oracle within 20 commands on at least ${MIN_ORACLE_WINS[name] ?? SEEDS} of ${SEEDS} seeds`, () => {
      let wins = 0;
      for (const level of levels) {
        const actions = solveLevel(level);
        const game = new AgentGymBabyAI(level);
        if (actions.length > 0 && actions.map((action) => game.step(action).done).at(-1)) wins += 1;
      }
      expect(wins).toBeGreaterThanOrEqual(MIN_ORACLE_WINS[name] ?? SEEDS);
    });
  });

  it('refuses an unknown family, naming the ones it knows, and a bad seed', () => {
    expect(() => generateLevel('BabyAI-BossLevel-v0', 0)).toThrow(InvalidArgumentError);
    expect(() => generateLevel('BabyAI-BossLevel-v0', 0)).toThrow(
      /BabyAI-GoToRedBallGrey-v0, BabyAI-GoToRedBall-v0/,
    );
    expect(() => generateLevel('BabyAI-GoToRedBall-v0', -1)).toThrow(InvalidArgumentError);
    expect(() => generateLevel('BabyAI-GoToRedBall-v0', 1.5)).toThrow(InvalidArgumentError);
  });
});

describe('the generated split', () => {
  it('is unbounded: task n plays family n mod 24 with generator seed floor(n / 24)', async () => {
    expect(babyaiTasks.splits()).toContain(GENERATED_SPLIT);
    expect(babyaiTasks.count(GENERATED_SPLIT)).toBe('unbounded');
    expect(await babyaiTasks.tasks(GENERATED_SPLIT)).toHaveLength(100);
    const tasks = await babyaiTasks.tasks(GENERATED_SPLIT, { offset: 1_000_000, limit: 2 });
    expect(tasks.map((task) => task.taskId)).toEqual(['generated-1000000', 'generated-1000001']);
    expect(generatedTaskOf(29)).toEqual({ levelName: GENERATED_LEVELS[5], seed: 1 });
  });

  it('plays generated-5 on reset, without a data index, and the oracle wins it', async () => {
    const env = createBabyaiEnv();
    const [task] = await babyaiTasks.tasks(GENERATED_SPLIT, { offset: 5, limit: 1 });
    const level = generateLevel(GENERATED_LEVELS[5]!, 0);
    let result = await env.reset({ seed: 0, taskId: 'generated-5' });
    expect(result.observation.startsWith(`Your goal: ${task!.description}\n`)).toBe(true);
    expect(result.info).toMatchObject({ taskId: 'generated-5', level: level.level });
    expect(result.info).not.toHaveProperty('dataIdx');
    const { actions } = await babyaiTasks.oracle(task!);
    expect(actions).toEqual(solveLevel(level));
    for (const action of actions) result = await env.step(action);
    expect(result.info.won).toBe(true);
  });

  it('refuses a malformed generated task id', async () => {
    await expect(createBabyaiEnv().reset({ seed: 0, taskId: 'generated-05' })).rejects.toThrow(
      /generated \(unbounded\)/,
    );
  });
});
