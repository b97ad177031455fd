// The Minigrid game under AgentGym's BabyAI: the agent, its primitive actions with BabyAI's
// verifier and reward after each one, and the 7×7 egocentric observation image (walls hide what is
// behind them), encoded as Minigrid encodes it. Ported from Minigrid v2.3.1 (`minigrid_env.py`,
// `core/grid.py`, `envs/babyai/core/roomgrid_level.py`).
import { type LevelState, type LoadedLevel, loadLevel } from './level';
import { type Instr, refreshObjectPositions } from './verifier';
import {
  canOverlap,
  canPickup,
  DIR_TO_VEC,
  encodeObject,
  Grid,
  makeObject,
  PRIMITIVES,
  type Primitive,
  seeBehind,
  type WorldObject,
} from './world';

/** Minigrid's `agent_view_size` for BabyAI. */
export const VIEW_SIZE = 7;
const OUTSIDE_WALL = makeObject('wall', 'grey');

export interface PrimitiveOutcome {
  readonly reward: number;
  readonly terminated: boolean;
  /** Minigrid's `truncated`: the step count reached `max_steps` (AgentGym ignores it). */
  readonly truncated: boolean;
}

export class Game {
  readonly grid: Grid;
  agentPos: readonly [number, number];
  agentDir: number;
  carrying: WorldObject | null = null;
  stepCount = 0;
  readonly maxSteps: number;
  readonly instr: Instr;

  constructor(
    readonly level: LevelState,
    loaded: LoadedLevel = loadLevel(level),
  ) {
    this.grid = loaded.grid;
    this.agentPos = loaded.agentPos;
    this.agentDir = loaded.agentDir;
    this.instr = loaded.instr;
    this.maxSteps = level.max_steps;
  }

  /** An independent copy (objects copied, identities kept consistent), for planning ahead. */
  clone(): Game {
    const copies = new Map<WorldObject, WorldObject>();
    const map = (o: WorldObject): WorldObject => {
      let copy = copies.get(o);
      if (copy === undefined) {
        copy = { ...o, contains: null };
        copies.set(o, copy);
        copy.contains = o.contains === null ? null : map(o.contains);
      }
      return copy;
    };
    const grid = new Grid(this.grid.width, this.grid.height);
    this.grid.cells.forEach((cell, k) => {
      grid.cells[k] = cell === null ? null : map(cell);
    });
    const copy = new Game(this.level, {
      grid,
      agentPos: this.agentPos,
      agentDir: this.agentDir,
      instr: this.instr.clone(map),
    });
    copy.carrying = this.carrying === null ? null : map(this.carrying);
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
    const [fx, fy] = this.frontPos();
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

  /** The grid cell at view position (i, j): i left → right, j far → near; the agent is at (3, 6). */
  viewCell(i: number, j: number): WorldObject | null {
    const [fx, fy] = this.dirVec;
    const f = VIEW_SIZE - 1 - j;
    const r = i - (VIEW_SIZE >> 1);
    const x = this.agentPos[0] + fx * f - fy * r;
    const y = this.agentPos[1] + fy * f + fx * r;
    return this.grid.inside(x, y) ? this.grid.get(x, y) : OUTSIDE_WALL;
  }

  /**
   * `gen_obs()["image"]`: the 7×7×3 encoding (index `(i * 7 + j) * 3`), zero where the view is hidden
   * behind walls and closed doors, and the carried object in the agent's own cell.
   */
  image(): Uint8Array {
    const n = VIEW_SIZE;
    const cells: (WorldObject | null)[] = [];
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) cells.push(this.viewCell(i, j));
    const at = (i: number, j: number) => cells[i * n + j] ?? null;
    const mask = new Uint8Array(n * n);
    mask[(n >> 1) * n + n - 1] = 1;
    const open = (i: number, j: number) => {
      const cell = at(i, j);
      return cell === null || seeBehind(cell);
    };
    for (let j = n - 1; j >= 0; j--) {
      for (let i = 0; i < n - 1; i++) {
        if (!mask[i * n + j] || !open(i, j)) continue;
        mask[(i + 1) * n + j] = 1;
        if (j > 0) {
          mask[(i + 1) * n + j - 1] = 1;
          mask[i * n + j - 1] = 1;
        }
      }
      for (let i = n - 1; i > 0; i--) {
        if (!mask[i * n + j] || !open(i, j)) continue;
        mask[(i - 1) * n + j] = 1;
        if (j > 0) {
          mask[(i - 1) * n + j - 1] = 1;
          mask[i * n + j - 1] = 1;
        }
      }
    }
    cells[(n >> 1) * n + n - 1] = this.carrying;
    const image = new Uint8Array(n * n * 3);
    for (let k = 0; k < n * n; k++) {
      if (!mask[k]) continue;
      const cell = cells[k] ?? null;
      if (cell === null) image[k * 3] = 1;
      else image.set(encodeObject(cell), k * 3);
    }
    return image;
  }
}

export function sameImage(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}
