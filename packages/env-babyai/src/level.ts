// A BabyAI level's start state as data: the grid, the agent, the mission and the verifier's
// instruction tree with the objects it matched at reset. This is the shape of one line of
// `levels.jsonl` (and of what `reference/drive-minigrid.py` dumps), so the start state of any
// Minigrid level can be played without porting Minigrid's generators and numpy's random numbers.
import { InvalidArgumentError, ParseError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { GoToInstr, type Instr, ObjDesc, OpenInstr, PickupInstr, PutNextInstr, SeqInstr } from './verifier';
import { COLORS, type Color, canPickup, Grid, makeObject, OBJECT_TYPES, type WorldObject } from './world';

const position = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]);

const objDescSchema = z.strictObject({
  type: z.enum(['box', 'ball', 'key', 'door']).nullable(),
  color: z.enum(COLORS).nullable(),
  loc: z.enum(['left', 'right', 'front', 'behind']).nullable(),
  /** Positions of the objects matching the description at reset, which the verifier tracks. */
  obj_poss: z.array(position),
});
export type ObjDescData = z.infer<typeof objDescSchema>;

export type InstrData =
  | { kind: 'GoToInstr'; desc: ObjDescData }
  | { kind: 'PickupInstr' | 'OpenInstr'; desc: ObjDescData; strict?: boolean | undefined }
  | { kind: 'PutNextInstr'; move: ObjDescData; fixed: ObjDescData; strict?: boolean | undefined }
  | {
      kind: 'BeforeInstr' | 'AfterInstr' | 'AndInstr';
      a: InstrData;
      b: InstrData;
      strict?: boolean | undefined;
    };

const instrSchema: z.ZodType<InstrData> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('GoToInstr'), desc: objDescSchema }),
    z.strictObject({
      kind: z.enum(['PickupInstr', 'OpenInstr']),
      desc: objDescSchema,
      strict: z.boolean().optional(),
    }),
    z.strictObject({
      kind: z.literal('PutNextInstr'),
      move: objDescSchema,
      fixed: objDescSchema,
      strict: z.boolean().optional(),
    }),
    z.strictObject({
      kind: z.enum(['BeforeInstr', 'AfterInstr', 'AndInstr']),
      a: instrSchema,
      b: instrSchema,
      strict: z.boolean().optional(),
    }),
  ]),
);

/** One cell: object index, colour index, door state (Minigrid's encoding), e.g. `250` = grey wall. */
const cellPattern = /^\d\d\d$/;
const cellSchema = z.string().regex(cellPattern, 'must be three digits (type, colour, state), e.g. "510"');

/**
 * An object off the grid (carried, or inside a box): its cell encoding (`"510"`, a green key), or
 * for a box that itself holds something `{ "cell": "740", "contains": <object> }`.
 */
export type ObjectData = string | { cell: string; contains: ObjectData };
const objectSchema: z.ZodType<ObjectData> = z.lazy(() =>
  z.union([cellSchema, z.strictObject({ cell: cellSchema, contains: objectSchema })]),
);

/** What a box on the grid holds (Minigrid's `Box.contains`, which a toggle of the box puts in its place). */
const boxContentSchema = z.strictObject({ pos: position, contains: objectSchema });
export type BoxContentData = z.infer<typeof boxContentSchema>;

/**
 * The fields a start state may carry beside the state itself: those of a `levels.jsonl` line
 * (its AgentGym item, split, goal text, first observation and commands), none of which the game reads.
 */
const metadataFields = {
  data_idx: z.number().int().nonnegative().optional(),
  item_id: z.string().optional(),
  split: z.string().optional(),
  goal: z.string().optional(),
  reset_observation: z.string().optional(),
  available_actions: z.array(z.string()).optional(),
};

/**
 * A start state. Strict: a field it does not know is refused with its name, never dropped (a
 * misspelt `box_contents` would otherwise load an empty box).
 */
export const levelStateObjectSchema = z.strictObject({
  /** Minigrid's registered name, e.g. `BabyAI-GoToRedBall-v0`. */
  level: z.string().min(1),
  seed: z.number().int().nonnegative().optional(),
  mission: z.string().min(1),
  width: z.number().int().min(3).max(64),
  height: z.number().int().min(3).max(64),
  agent_pos: position,
  /** 0 right, 1 down, 2 left, 3 up. */
  agent_dir: z.number().int().min(0).max(3),
  max_steps: z.number().int().positive(),
  /** Minigrid's `step_count` at the start (0 after a reset); it counts towards `max_steps` and the reward. */
  step_count: z.number().int().nonnegative().optional(),
  /** `grid_rows[y]`: the cells of row y, x = 0 … width-1, space-separated. */
  grid_rows: z.array(z.string()),
  /** The object the agent holds at the start (Minigrid's `carrying`): a key, ball or box. */
  carrying: objectSchema.nullable().optional(),
  /** What the boxes on the grid hold, by the box's position (boxes not listed are empty). */
  box_contents: z.array(boxContentSchema).optional(),
  instrs: instrSchema,
  ...metadataFields,
});

export const levelStateSchema = levelStateObjectSchema.superRefine((level, ctx) => {
  if (level.grid_rows.length !== level.height) {
    ctx.addIssue({
      code: 'custom',
      path: ['grid_rows'],
      message: `has ${level.grid_rows.length} rows but height is ${level.height}`,
    });
  }
  level.grid_rows.forEach((row, y) => {
    const cells = row.split(' ');
    if (cells.length !== level.width || !cells.every((cell) => cellPattern.test(cell))) {
      ctx.addIssue({
        code: 'custom',
        path: ['grid_rows', y],
        message: `must be ${level.width} space-separated cells of three digits (type, colour, state)`,
      });
    }
  });
  const [x, y] = level.agent_pos;
  if (x >= level.width || y >= level.height) {
    ctx.addIssue({ code: 'custom', path: ['agent_pos'], message: 'lies outside the grid' });
  }
  if (level.step_count !== undefined && level.step_count >= level.max_steps) {
    ctx.addIssue({
      code: 'custom',
      path: ['step_count'],
      message: `must be below max_steps (${level.max_steps}): the episode would already be over`,
    });
  }
  const boxes = new Set<string>();
  level.box_contents?.forEach(({ pos }, k) => {
    const key = pos.join(',');
    if (boxes.has(key)) {
      ctx.addIssue({
        code: 'custom',
        path: ['box_contents', k, 'pos'],
        message: `lists the box at (${key}) twice`,
      });
    }
    boxes.add(key);
  });
});
export type LevelState = z.infer<typeof levelStateSchema>;

/** A level ready to play: a fresh grid of fresh objects and a verifier bound to them. */
export interface LoadedLevel {
  readonly grid: Grid;
  readonly agentPos: readonly [number, number];
  readonly agentDir: number;
  readonly instr: Instr;
  /** The object held at the start (off the grid: its `curPos` is null). */
  readonly carrying: WorldObject | null;
  /**
   * The empty cell an instruction's `obj_poss` binds to the carried object: where Minigrid's level
   * had it when it matched the descriptions, before the agent took it (PutNextS7N4Carrying).
   */
  readonly carriedFrom: readonly [number, number] | null;
}

const DOOR_STATE_FLAGS = [{ open: true }, {}, { locked: true }] as const;

function decodeCell(cell: string, where: string): WorldObject | null {
  const type = OBJECT_TYPES[Number(cell[0])];
  const color = COLORS[Number(cell[1])] as Color | undefined;
  const state = Number(cell[2]);
  if (type === undefined || color === undefined || state > 2) {
    throw new InvalidArgumentError(`babyai level: cell "${cell}" at ${where} is not a Minigrid encoding`);
  }
  if (type === 'empty' || type === 'unseen') return null;
  if (type === 'agent') {
    throw new InvalidArgumentError(`babyai level: cell "${cell}" at ${where} holds an agent object`);
  }
  return makeObject(type, color, type === 'door' ? DOOR_STATE_FLAGS[state] : {});
}

/** An object off the grid (carried or in a box), with what it holds in turn. */
function decodeObject(data: ObjectData, where: string): WorldObject {
  const cell = typeof data === 'string' ? data : data.cell;
  const object = decodeCell(cell, where);
  if (object === null) {
    throw new InvalidArgumentError(
      `babyai level: ${where} is "${cell}", an empty cell; it must be an object`,
    );
  }
  if (typeof data !== 'string') {
    if (object.type !== 'box') {
      throw new InvalidArgumentError(
        `babyai level: ${where} is a ${object.type} with contents; only a box holds another object`,
      );
    }
    object.contains = decodeObject(data.contains, `${where}.contains`);
  }
  return object;
}

/** Builds the grid, the held object, the boxes' contents and the verifier of a validated start state. */
export function loadLevel(state: LevelState): LoadedLevel {
  const grid = new Grid(state.width, state.height);
  state.grid_rows.forEach((row, y) => {
    row.split(' ').forEach((cell, x) => {
      grid.set(x, y, decodeCell(cell, `(${x}, ${y})`));
    });
  });
  const start = grid.get(...state.agent_pos);
  if (start !== null && !(start.type === 'goal' || (start.type === 'door' && start.isOpen))) {
    throw new InvalidArgumentError(
      `babyai level ${state.level}: the agent starts at (${state.agent_pos.join(', ')}) on a ${start.type}`,
    );
  }
  const carrying =
    state.carrying === undefined || state.carrying === null ? null : decodeObject(state.carrying, 'carrying');
  if (carrying !== null && !canPickup(carrying)) {
    throw new InvalidArgumentError(
      `babyai level ${state.level}: carrying is a ${carrying.type}; the agent can only hold a key, a ball or a box`,
    );
  }
  state.box_contents?.forEach(({ pos: [x, y], contains }, k) => {
    const box = grid.inside(x, y) ? grid.get(x, y) : null;
    if (box?.type !== 'box') {
      throw new InvalidArgumentError(
        `babyai level ${state.level}: box_contents.${k}.pos (${x}, ${y}) holds no box (${box === null ? 'nothing' : `a ${box.type}`})`,
      );
    }
    box.contains = decodeObject(contains, `box_contents.${k}.contains`);
  });
  let carriedFrom: readonly [number, number] | null = null;
  const matches = (data: ObjDescData, o: WorldObject) =>
    (data.type === null || o.type === data.type) && (data.color === null || o.color === data.color);
  const desc = (data: ObjDescData, path: string): ObjDesc => {
    const objects = data.obj_poss.map(([x, y]) => {
      const o = grid.inside(x, y) ? grid.get(x, y) : null;
      if (o !== null && matches(data, o)) return o;
      // Minigrid matched the descriptions before the agent took its load from this cell
      // (PutNextS7N4Carrying), so the position of the carried object is an empty cell.
      if (o === null && grid.inside(x, y) && carrying !== null && matches(data, carrying)) {
        carriedFrom ??= [x, y];
        return carrying;
      }
      throw new InvalidArgumentError(
        `babyai level ${state.level}: ${path}.obj_poss (${x}, ${y}) holds no ${data.color ?? ''} ${data.type ?? 'object'}${carrying === null ? '' : ', nor is the carried object one'}; each position must hold an object the description matches, or be the empty cell the carried object was taken from`,
      );
    });
    return new ObjDesc(
      data.type,
      data.color,
      data.loc,
      objects,
      data.obj_poss.map(([x, y]) => [x, y] as const),
    );
  };
  const build = (data: InstrData, path: string): Instr => {
    switch (data.kind) {
      case 'GoToInstr':
        return new GoToInstr(desc(data.desc, `${path}.desc`));
      case 'PickupInstr':
        return new PickupInstr(desc(data.desc, `${path}.desc`), data.strict ?? false);
      case 'OpenInstr':
        return new OpenInstr(desc(data.desc, `${path}.desc`), data.strict ?? false);
      case 'PutNextInstr':
        return new PutNextInstr(
          desc(data.move, `${path}.move`),
          desc(data.fixed, `${path}.fixed`),
          data.strict ?? false,
        );
      default:
        return new SeqInstr(
          data.kind,
          build(data.a, `${path}.a`),
          build(data.b, `${path}.b`),
          data.strict ?? false,
        );
    }
  };
  return {
    grid,
    agentPos: state.agent_pos,
    agentDir: state.agent_dir,
    instr: build(state.instrs, 'instrs'),
    carrying,
    carriedFrom,
  };
}

/** Validates a start state (an object, or one JSON line) and names what is wrong and where. */
export function parseLevelState(value: unknown, source = 'babyai level'): LevelState {
  return parseOrThrow(levelStateSchema, value, source);
}

/** Parses a JSON-lines level file (such as `levels.jsonl`); errors name the line. */
export function parseLevelFile(text: string, source = 'levels.jsonl'): LevelState[] {
  const levels: LevelState[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ParseError(source, index + 1, `not valid JSON (${(error as Error).message})`);
    }
    const result = levelStateSchema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new ParseError(
        source,
        index + 1,
        `not a BabyAI start state: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      );
    }
    levels.push(result.data);
  });
  return levels;
}

/** AgentGym's goal text: the mission with "then" and "after you" replaced by "and" (order lost). */
export function goalOf(mission: string): string {
  return mission.replaceAll('then', 'and').replaceAll('after you', 'and');
}
