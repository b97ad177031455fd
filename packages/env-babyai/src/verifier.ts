// BabyAI's instruction verifier (Minigrid v2.3.1 `envs/babyai/core/verifier.py`), run after every
// primitive action. Objects are tracked by identity, as in the original: `obj_set` holds the objects
// matched at reset and `obj_poss` their positions, refreshed only after a drop.
import type { Grid, Primitive, WorldObject } from './world';
import { PRIMITIVES } from './world';

export type Status = 'success' | 'failure' | 'continue';

/** Maps an object of one game to its copy in a cloned game. */
export type ObjectMap = (o: WorldObject) => WorldObject;

/** What the verifier reads from the game after each primitive. */
export interface VerifierView {
  readonly grid: Grid;
  readonly carrying: WorldObject | null;
  frontPos(): readonly [number, number];
}

export class ObjDesc {
  constructor(
    readonly type: string | null,
    readonly color: string | null,
    readonly loc: string | null,
    /** The objects matched at reset. */
    readonly objSet: readonly WorldObject[],
    public objPoss: (readonly [number, number])[],
  ) {}

  clone(map: ObjectMap): ObjDesc {
    return new ObjDesc(this.type, this.color, this.loc, this.objSet.map(map), [...this.objPoss]);
  }

  /**
   * `find_matching_objs(env, use_location=False)`: positions of the tracked objects still on the grid,
   * in the order of its scan (x, then y). Without the scan: `Grid.set`, the only way an object gets
   * onto the grid, records its cell in `curPos`, so a tracked object lies on the grid exactly when
   * its `curPos` cell holds it.
   */
  refreshPositions(grid: Grid): void {
    const poss: [number, number][] = [];
    this.objSet.forEach((o, k) => {
      const at = o.curPos;
      if (at === null || this.objSet.indexOf(o) !== k) return;
      const [x, y] = at;
      if (grid.inside(x, y) && grid.get(x, y) === o) poss.push([x, y]);
    });
    this.objPoss = poss.sort(([ax, ay], [bx, by]) => ax - bx || ay - by);
  }
}

export type Instr = GoToInstr | PickupInstr | OpenInstr | PutNextInstr | SeqInstr;

export class GoToInstr {
  readonly kind = 'GoToInstr';
  constructor(readonly desc: ObjDesc) {}
  verify(view: VerifierView, _action: Primitive): Status {
    const [fx, fy] = view.frontPos();
    for (const [x, y] of this.desc.objPoss) if (x === fx && y === fy) return 'success';
    return 'continue';
  }
  descs(): ObjDesc[] {
    return [this.desc];
  }
  clone(map: ObjectMap): GoToInstr {
    return new GoToInstr(this.desc.clone(map));
  }
}

export class OpenInstr {
  readonly kind = 'OpenInstr';
  constructor(
    readonly desc: ObjDesc,
    readonly strict: boolean,
  ) {}
  verify(view: VerifierView, action: Primitive): Status {
    if (action !== PRIMITIVES.toggle) return 'continue';
    const front = view.grid.get(...view.frontPos());
    for (const door of this.desc.objSet)
      if (front !== null && front === door && door.isOpen) return 'success';
    if (this.strict && front !== null && front.type === 'door') return 'failure';
    return 'continue';
  }
  descs(): ObjDesc[] {
    return [this.desc];
  }
  clone(map: ObjectMap): OpenInstr {
    return new OpenInstr(this.desc.clone(map), this.strict);
  }
}

export class PickupInstr {
  readonly kind = 'PickupInstr';
  private preCarrying: WorldObject | null = null;
  constructor(
    readonly desc: ObjDesc,
    readonly strict: boolean,
  ) {}
  verify(view: VerifierView, action: Primitive): Status {
    const preCarrying = this.preCarrying;
    this.preCarrying = view.carrying;
    if (action !== PRIMITIVES.pickup) return 'continue';
    for (const o of this.desc.objSet) if (preCarrying === null && view.carrying === o) return 'success';
    if (this.strict && view.carrying !== null) return 'failure';
    this.preCarrying = view.carrying;
    return 'continue';
  }
  descs(): ObjDesc[] {
    return [this.desc];
  }
  clone(map: ObjectMap): PickupInstr {
    const copy = new PickupInstr(this.desc.clone(map), this.strict);
    copy.preCarrying = this.preCarrying === null ? null : map(this.preCarrying);
    return copy;
  }
}

export class PutNextInstr {
  readonly kind = 'PutNextInstr';
  private preCarrying: WorldObject | null = null;
  constructor(
    readonly move: ObjDesc,
    readonly fixed: ObjDesc,
    readonly strict: boolean,
  ) {}
  verify(view: VerifierView, action: Primitive): Status {
    const preCarrying = this.preCarrying;
    this.preCarrying = view.carrying;
    if (this.strict && action === PRIMITIVES.pickup && view.carrying !== null) return 'failure';
    if (action !== PRIMITIVES.drop) return 'continue';
    for (const a of this.move.objSet) {
      if (preCarrying !== a || a.curPos === null) continue;
      const [ax, ay] = a.curPos;
      if (this.fixed.objPoss.some(([bx, by]) => Math.abs(ax - bx) + Math.abs(ay - by) === 1))
        return 'success';
    }
    return 'continue';
  }
  descs(): ObjDesc[] {
    return [this.move, this.fixed];
  }
  clone(map: ObjectMap): PutNextInstr {
    const copy = new PutNextInstr(this.move.clone(map), this.fixed.clone(map), this.strict);
    copy.preCarrying = this.preCarrying === null ? null : map(this.preCarrying);
    return copy;
  }
}

/** `BeforeInstr` (a then b), `AfterInstr` (a after b) and `AndInstr` (both, any order). */
export class SeqInstr {
  /** Python compares these against "success" while they start as False. */
  aDone: Status | false = false;
  bDone: Status | false = false;
  constructor(
    readonly kind: 'BeforeInstr' | 'AfterInstr' | 'AndInstr',
    readonly a: Instr,
    readonly b: Instr,
    readonly strict: boolean,
  ) {}
  verify(view: VerifierView, action: Primitive): Status {
    if (this.kind === 'AndInstr') {
      if (this.aDone !== 'success') this.aDone = this.a.verify(view, action);
      if (this.bDone !== 'success') this.bDone = this.b.verify(view, action);
      return this.aDone === 'success' && this.bDone === 'success' ? 'success' : 'continue';
    }
    // Before: a then b; After: b then a.
    const aFirst = this.kind === 'BeforeInstr';
    if ((aFirst ? this.aDone : this.bDone) === 'success') {
      const status = (aFirst ? this.b : this.a).verify(view, action);
      if (aFirst) this.bDone = status;
      else this.aDone = status;
      if (status === 'failure') return 'failure';
      if (status === 'success') return 'success';
    } else {
      const status = (aFirst ? this.a : this.b).verify(view, action);
      if (aFirst) this.aDone = status;
      else this.bDone = status;
      if (status === 'failure') return 'failure';
      if (status === 'success') return this.verify(view, action);
      if (this.strict && (aFirst ? this.b : this.a).verify(view, action) === 'success') return 'failure';
    }
    return 'continue';
  }
  descs(): ObjDesc[] {
    return [...this.a.descs(), ...this.b.descs()];
  }
  clone(map: ObjectMap): SeqInstr {
    const copy = new SeqInstr(this.kind, this.a.clone(map), this.b.clone(map), this.strict);
    copy.aDone = this.aDone;
    copy.bDone = this.bDone;
    return copy;
  }
}

/** `RoomGridLevel.update_objs_poss`, called after every drop. */
export function refreshObjectPositions(instr: Instr, grid: Grid): void {
  for (const desc of instr.descs()) desc.refreshPositions(grid);
}
