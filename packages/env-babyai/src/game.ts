// The Minigrid game under AgentGym's BabyAI: the agent, its primitive actions with BabyAI's
// verifier and reward after each one, and the 7×7 egocentric observation image (walls hide what is
// behind them), encoded as Minigrid encodes it. Ported from Minigrid v2.3.1 (`minigrid_env.py`,
// `core/grid.py`, `envs/babyai/core/roomgrid_level.py`).
import { type LevelState, type LoadedLevel, loadLevel } from './level';
import { type Instr, type ObjectMap, refreshObjectPositions } from './verifier';
import {
  canOverlap,
  canPickup,
  colorIndex,
  DIR_TO_VEC,
  Grid,
  makeObject,
  objectState,
  PRIMITIVES,
  type Primitive,
  seeBehind,
  typeIndex,
  type WorldObject,
} from './world';

/** Minigrid's `agent_view_size` for BabyAI. */
export const VIEW_SIZE = 7;
const VIEW_CELLS = VIEW_SIZE * VIEW_SIZE;
const OUTSIDE_WALL = makeObject('wall', 'grey');
/** Direction vectors as two tables, so the hot paths index numbers rather than destructure tuples. */
const DX = DIR_TO_VEC.map(([dx]) => dx);
const DY = DIR_TO_VEC.map(([, dy]) => dy);

/**
 * Minigrid's `process_vis` for one row of the view, for every row: `VISIBILITY[(seen << 7) | clear]`,
 * with bit i of each mask for column i, takes the row's cells already seen (lit from the row nearer
 * the agent) and those that let the agent see past them, runs the rightward then the leftward sweep
 * along the row, and gives the row's visible cells (low 7 bits) and the next row's cells they light
 * (high 7 bits).
 */
const VISIBILITY = new Uint16Array(1 << (2 * VIEW_SIZE));
for (let seen = 0; seen < 1 << VIEW_SIZE; seen++) {
  for (let clear = 0; clear < 1 << VIEW_SIZE; clear++) {
    let row = seen;
    let next = 0;
    for (let i = 0; i < VIEW_SIZE - 1; i++) {
      if ((row >> i) & (clear >> i) & 1) {
        row |= 1 << (i + 1);
        next |= (1 << (i + 1)) | (1 << i);
      }
    }
    for (let i = VIEW_SIZE - 1; i > 0; i--) {
      if ((row >> i) & (clear >> i) & 1) {
        row |= 1 << (i - 1);
        next |= (1 << (i - 1)) | (1 << i);
      }
    }
    VISIBILITY[(seen << VIEW_SIZE) | clear] = row | (next << VIEW_SIZE);
  }
}
const ROW_MASK = (1 << VIEW_SIZE) - 1;
/** Scratch for `image()`: the cells of the row of the view it is working on. */
const rowCells: (WorldObject | null)[] = new Array<WorldObject | null>(VIEW_SIZE).fill(null);

const IMAGE_BYTES = VIEW_CELLS * 3;
/**
 * Images are carved out of shared 8 KiB blocks, as Node's `Buffer` pool does: a typed array this size
 * of its own costs an off-heap allocation (several hundred nanoseconds, more than the rest of
 * `image()`), a view on a block a few dozen. A kept image keeps its block alive.
 */
const IMAGES_PER_BLOCK = Math.floor(8192 / IMAGE_BYTES);
let imageBlock = new ArrayBuffer(0);
let imagesLeft = 0;
function newImage(): Uint8Array {
  if (imagesLeft === 0) {
    imageBlock = new ArrayBuffer(IMAGES_PER_BLOCK * IMAGE_BYTES);
    imagesLeft = IMAGES_PER_BLOCK;
  }
  imagesLeft -= 1;
  return new Uint8Array(imageBlock, imagesLeft * IMAGE_BYTES, IMAGE_BYTES);
}

export interface PrimitiveOutcome {
  readonly reward: number;
  readonly terminated: boolean;
  /** Minigrid's `truncated`: the step count reached `max_steps` (AgentGym ignores it). */
  readonly truncated: boolean;
}

/**
 * A copy of `source` with a copy of each object, and `map`, which gives the copy of any object of the
 * original game (made once, so what referred to one object refers to one copy). An object on the grid
 * lies at its `curPos` (`Grid.set` records it), so its copy is found at that cell of the copy.
 */
function copyObjects(source: Grid): { grid: Grid; map: ObjectMap } {
  const { width, height, cells } = source;
  const grid = new Grid(width, height);
  const copies = grid.cells;
  const offGrid = new Map<WorldObject, WorldObject>();
  const copyOf = (o: WorldObject): WorldObject => ({
    type: o.type,
    color: o.color,
    isOpen: o.isOpen,
    isLocked: o.isLocked,
    contains: null,
    curPos: o.curPos,
  });
  const map = (o: WorldObject): WorldObject => {
    const at = o.curPos;
    if (at !== null && at[0] >= 0 && at[1] >= 0 && at[0] < width && at[1] < height) {
      const k = at[1] * width + at[0];
      if (cells[k] === o) return copies[k]!;
    }
    let copy = offGrid.get(o);
    if (copy === undefined) {
      copy = copyOf(o);
      offGrid.set(o, copy);
      copy.contains = o.contains === null ? null : map(o.contains);
    }
    return copy;
  };
  for (let k = 0; k < cells.length; k++) {
    const cell = cells[k] ?? null;
    if (cell !== null) copies[k] = copyOf(cell);
  }
  for (let k = 0; k < cells.length; k++) {
    const contains = cells[k]?.contains ?? null;
    if (contains !== null) copies[k]!.contains = map(contains);
  }
  return { grid, map };
}

/** What decoding a start state read, to tell whether the state changed since; with its decoding once it is played again. */
interface Decoded {
  readonly read: readonly unknown[];
  readonly rows: readonly string[];
  /** The instruction tree, the held object and the boxes' contents, as JSON. */
  readonly rest: string;
  loaded: LoadedLevel | undefined;
}

/**
 * Start states played before: a game of one played again copies its decoded grid and instruction
 * (several times faster than decoding its text again) as long as what the decoding read is
 * unchanged. A state played once (a generated level) is decoded for its game alone, as before.
 */
const decodedLevels = new WeakMap<LevelState, Decoded>();

const restOf = (level: LevelState) =>
  JSON.stringify([level.instrs, level.carrying ?? null, level.box_contents ?? null]);

function loadCopy(level: LevelState): LoadedLevel {
  const read = [level.width, level.height, level.agent_pos[0], level.agent_pos[1], level.agent_dir];
  const decoded = decodedLevels.get(level);
  const rest = restOf(level);
  if (
    decoded === undefined ||
    decoded.read.some((value, k) => value !== read[k]) ||
    decoded.rows.length !== level.grid_rows.length ||
    decoded.rows.some((row, y) => row !== level.grid_rows[y]) ||
    decoded.rest !== rest
  ) {
    const loaded = loadLevel(level);
    decodedLevels.set(level, { read, rows: [...level.grid_rows], rest, loaded: undefined });
    return loaded;
  }
  decoded.loaded ??= loadLevel(level);
  const { grid, map } = copyObjects(decoded.loaded.grid);
  return {
    grid,
    agentPos: level.agent_pos,
    agentDir: decoded.loaded.agentDir,
    instr: decoded.loaded.instr.clone(map),
    carrying: decoded.loaded.carrying === null ? null : map(decoded.loaded.carrying),
    carriedFrom: decoded.loaded.carriedFrom,
  };
}

export class Game {
  readonly grid: Grid;
  agentPos: readonly [number, number];
  agentDir: number;
  carrying: WorldObject | null = null;
  stepCount = 0;
  readonly maxSteps: number;
  readonly instr: Instr;
  /** Where the object held from the start lay when the level was made (see `resetImage`). */
  readonly carriedFrom: readonly [number, number] | null;

  constructor(
    readonly level: LevelState,
    loaded: LoadedLevel = loadCopy(level),
  ) {
    this.grid = loaded.grid;
    this.agentPos = loaded.agentPos;
    this.agentDir = loaded.agentDir;
    this.instr = loaded.instr;
    this.carrying = loaded.carrying;
    this.carriedFrom = loaded.carriedFrom;
    this.stepCount = level.step_count ?? 0;
    this.maxSteps = level.max_steps;
  }

  /** An independent copy (objects copied, identities kept consistent), for planning ahead. */
  clone(): Game {
    const { grid, map } = copyObjects(this.grid);
    const copy = new Game(this.level, {
      grid,
      agentPos: this.agentPos,
      agentDir: this.agentDir,
      instr: this.instr.clone(map),
      carrying: this.carrying === null ? null : map(this.carrying),
      carriedFrom: this.carriedFrom,
    });
    copy.stepCount = this.stepCount;
    return copy;
  }

  get dirVec(): readonly [number, number] {
    return DIR_TO_VEC[this.agentDir]!;
  }

  frontPos(): readonly [number, number] {
    const [dx, dy] = this.dirVec;
    return [this.agentPos[0] + dx, this.agentPos[1] + dy];
  }

  /** `MiniGridEnv.step` followed by `RoomGridLevel.step`'s verifier. */
  step(action: Primitive): PrimitiveOutcome {
    this.stepCount += 1;
    let reward = 0;
    let terminated = false;
    const fx = this.agentPos[0] + DX[this.agentDir]!;
    const fy = this.agentPos[1] + DY[this.agentDir]!;
    const front = this.grid.get(fx, fy);
    switch (action) {
      case PRIMITIVES.left:
        this.agentDir = (this.agentDir + 3) % 4;
        break;
      case PRIMITIVES.right:
        this.agentDir = (this.agentDir + 1) % 4;
        break;
      case PRIMITIVES.forward:
        if (front === null || canOverlap(front)) this.agentPos = [fx, fy];
        if (front?.type === 'goal') {
          terminated = true;
          reward = this.successReward();
        }
        if (front?.type === 'lava') terminated = true;
        break;
      case PRIMITIVES.pickup:
        if (front !== null && canPickup(front) && this.carrying === null) {
          this.carrying = front;
          this.grid.set(fx, fy, null);
          front.curPos = null;
        }
        break;
      case PRIMITIVES.drop:
        if (front === null && this.carrying !== null) {
          this.grid.set(fx, fy, this.carrying);
          this.carrying = null;
        }
        break;
      case PRIMITIVES.toggle:
        if (front?.type === 'door') {
          if (front.isLocked) {
            if (this.carrying?.type === 'key' && this.carrying.color === front.color) {
              front.isLocked = false;
              front.isOpen = true;
            }
          } else {
            front.isOpen = !front.isOpen;
          }
        } else if (front?.type === 'box') {
          this.grid.set(fx, fy, front.contains);
        }
        break;
      default:
        break;
    }
    if (action === PRIMITIVES.drop) refreshObjectPositions(this.instr, this.grid);
    const status = this.instr.verify(this, action);
    const truncated = this.stepCount >= this.maxSteps;
    if (status === 'success') return { reward: this.successReward(), terminated: true, truncated };
    if (status === 'failure') return { reward: 0, terminated: true, truncated };
    return { reward, terminated, truncated };
  }

  private successReward(): number {
    return 1 - 0.9 * (this.stepCount / this.maxSteps);
  }

  /**
   * The image of the observation Minigrid's `reset` returns. It is `image()`, except for a level
   * whose agent starts with a load: PutNext's `reset` computes the observation first and only then
   * takes the object off its cell and hands it to the agent, so the image shows the object on the
   * cell it came from (`carriedFrom`, where known) and empty hands. AgentGym describes this image
   * at reset and compares the first command's views against it.
   */
  resetImage(): Uint8Array {
    const carried = this.carrying;
    if (carried === null || this.stepCount > (this.level.step_count ?? 0)) return this.image();
    const from = this.carriedFrom;
    const at = from === null ? -1 : from[1] * this.grid.width + from[0];
    if (at === -1 || this.grid.cells[at] !== null) return this.image(false);
    // Put it back for the picture alone (not through `Grid.set`, which would move its `curPos`).
    this.grid.cells[at] = carried;
    try {
      return this.image(false);
    } finally {
      this.grid.cells[at] = null;
    }
  }

  /**
   * `gen_obs()["image"]`: the 7×7×3 encoding (index `(i * 7 + j) * 3`), zero where the view is hidden
   * behind walls and closed doors, and the carried object in the agent's own cell (unless
   * `showCarried` is false).
   */
  image(showCarried = true): Uint8Array {
    const n = VIEW_SIZE;
    const { width, height, cells } = this.grid;
    const fx = DX[this.agentDir]!;
    const fy = DY[this.agentDir]!;
    // View (i, j) lies at the agent + (n - 1 - j) steps forward + (i - n/2) steps to the right.
    const originX = this.agentPos[0] + fx * (n - 1) + fy * (n >> 1);
    const originY = this.agentPos[1] + fy * (n - 1) - fx * (n >> 1);
    const image = newImage();
    // Row by row away from the agent, which sees its own cell: a row's visibility needs only the
    // cells of that row and what the row before it lit.
    let lit = 1 << (n >> 1);
    for (let j = n - 1; j >= 0 && lit !== 0; j--) {
      let clear = 0;
      let x = originX - fx * j;
      let y = originY - fy * j;
      for (let i = 0; i < n; i++) {
        const cell =
          x >= 0 && y >= 0 && x < width && y < height ? (cells[y * width + x] ?? null) : OUTSIDE_WALL;
        rowCells[i] = cell;
        if (cell === null || seeBehind(cell)) clear |= 1 << i;
        x -= fy;
        y += fx;
      }
      const visibility = VISIBILITY[(lit << n) | clear]!;
      const visible = visibility & ROW_MASK;
      lit = j > 0 ? visibility >> n : 0;
      // The agent's cell shows what it carries.
      if (j === n - 1) rowCells[n >> 1] = showCarried ? this.carrying : null;
      for (let i = 0; i < n; i++) {
        if (((visible >> i) & 1) === 0) continue;
        const at = (i * n + j) * 3;
        const cell = rowCells[i]!;
        if (cell === null) {
          image[at] = 1;
        } else {
          image[at] = typeIndex(cell.type);
          image[at + 1] = colorIndex(cell.color);
          image[at + 2] = objectState(cell);
        }
      }
    }
    return image;
  }
}

export function sameImage(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}
