// Plays a compiled game: keeps the PDDL state and TextWorld's fact view (which also records atoms
// deleted during play as `not_<pred>` facts), tracks applicable operators incrementally, and
// renders commands and feedback from the grammar. An engine's episode state is a few typed arrays,
// so `clone()` copies them and shares everything derived from the read-only compiled game.
import type { CompiledGame, GroundBranch } from './game';
import { type Bindings, Deriver, type FactView, type Query } from './text-grammar';

// An atom in TextWorld's fact view: absent (0, as a new array holds), true, or deleted during play.
const TEXT_TRUE = 1;
const TEXT_NEGATED = 2;

export interface EngineStep {
  readonly feedback: string;
  /** The command matched an admissible command and was executed. */
  readonly valid: boolean;
}

/** Everything play changes: an engine owns one, and its clone gets a copy. */
class EpisodeState {
  constructor(
    /** PDDL truth of each atom (0 or 1). */
    readonly truth: Uint8Array,
    /** TextWorld's fact view of each atom: 0, TEXT_TRUE, or TEXT_NEGATED (read as `not_<pred>`). */
    readonly text: Uint8Array,
    /** Per branch, how many of its preconditions fail now; 0 means applicable. */
    readonly unsat: Int32Array,
    /** The applicable branches (first `applicableCount` entries), and each branch's slot there or -1. */
    readonly applicable: Int32Array,
    readonly applicablePos: Int32Array,
    public applicableCount: number,
  ) {}

  clone(): EpisodeState {
    return new EpisodeState(
      this.truth.slice(),
      this.text.slice(),
      this.unsat.slice(),
      this.applicable.slice(),
      this.applicablePos.slice(),
      this.applicableCount,
    );
  }
}

/**
 * What every engine on one compiled game shares: indexes and memos that depend on the game alone
 * (never on an episode's state), and the episode's initial state, which is only ever copied.
 */
class GameIndex {
  readonly deriver: Deriver;
  /** Per atom, the branches that need it true (pos) or false (neg). */
  readonly posWatch: Int32Array[];
  readonly negWatch: Int32Array[];
  readonly initial: EpisodeState;
  /** Commands of operators whose template reads only static facts. */
  readonly staticCommands: (string | undefined)[];
  private readonly predAtoms = new Map<string, Int32Array>();
  private readonly argAtoms = new Map<string, Int32Array>();

  constructor(readonly game: CompiledGame) {
    this.deriver = new Deriver(game.rules, `${game.problemName}`);
    this.staticCommands = new Array(game.ops.length);
    const atoms = game.atomPred.length;
    const pos: number[][] = Array.from({ length: atoms }, () => []);
    const neg: number[][] = Array.from({ length: atoms }, () => []);
    game.branches.forEach((branch, b) => {
      for (const atom of branch.pos) pos[atom]!.push(b);
      for (const atom of branch.neg) neg[atom]!.push(b);
    });
    this.posWatch = pos.map((list) => Int32Array.from(list));
    this.negWatch = neg.map((list) => Int32Array.from(list));
    const branches = game.branches.length;
    const initial = new EpisodeState(
      new Uint8Array(atoms),
      new Uint8Array(atoms),
      new Int32Array(branches),
      new Int32Array(branches),
      new Int32Array(branches).fill(-1),
      0,
    );
    for (const atom of game.initialAtoms) {
      initial.truth[atom] = 1;
      initial.text[atom] = TEXT_TRUE;
    }
    game.branches.forEach((branch, b) => {
      let count = 0;
      for (const atom of branch.pos) if (initial.truth[atom] === 0) count++;
      for (const atom of branch.neg) if (initial.truth[atom] === 1) count++;
      initial.unsat[b] = count;
      if (count === 0) {
        initial.applicablePos[b] = initial.applicableCount;
        initial.applicable[initial.applicableCount++] = b;
      }
    });
    this.initial = initial;
  }

  isStaticPred(pred: string): boolean {
    return !this.game.fluentPredicates.has(pred);
  }

  /** Atoms of `pred`, in TextWorld's order (by argument ids). */
  atomsOf(pred: string): Int32Array {
    let list = this.predAtoms.get(pred);
    if (list === undefined) {
      const { atomPred, atomArgs, entityIds } = this.game;
      const ids: number[] = [];
      for (let atom = 0; atom < atomPred.length; atom++) if (atomPred[atom] === pred) ids.push(atom);
      const keyOf = (atom: number) => atomArgs[atom]!.map((e) => entityIds[e]!);
      ids.sort((a, b) => compareTuples(keyOf(a), keyOf(b)));
      list = Int32Array.from(ids);
      this.predAtoms.set(pred, list);
    }
    return list;
  }

  /** Atoms of `pred` whose argument `pos` is `entity`, in TextWorld's order. */
  atomsWithArg(pred: string, pos: number, entity: number): Int32Array {
    const key = `${pred}/${pos}/${entity}`;
    let list = this.argAtoms.get(key);
    if (list === undefined) {
      list = this.atomsOf(pred).filter((atom) => this.game.atomArgs[atom]![pos] === entity);
      this.argAtoms.set(key, list);
    }
    return list;
  }
}

const indexes = new WeakMap<CompiledGame, GameIndex>();

function indexOf(game: CompiledGame): GameIndex {
  let index = indexes.get(game);
  if (index === undefined) {
    index = new GameIndex(game);
    indexes.set(game, index);
  }
  return index;
}

export class GameEngine implements FactView {
  readonly game: CompiledGame;
  private readonly index: GameIndex;
  private state: EpisodeState;
  private admissibleCache: { commands: string[]; byCommand: Map<string, number> } | undefined;

  /** An engine at the start of `game`'s episode (engines on one game share its indexes). */
  constructor(game: CompiledGame) {
    this.game = game;
    this.index = indexOf(game);
    this.state = this.index.initial.clone();
  }

  /** Back to the initial state; returns the intro text. */
  reset(): string {
    this.state = this.index.initial.clone();
    this.admissibleCache = undefined;
    return this.index.deriver.derive(this.game.intro, { mapping: new Map(), vars: new Map() }, this);
  }

  /**
   * An independent engine in this engine's state: it answers every later command as this one
   * would, and stepping either never moves the other. The episode state is copied; the compiled
   * game and what is derived from it alone are shared.
   */
  clone(): GameEngine {
    const copy = new GameEngine(this.game);
    copy.state = this.state.clone();
    const cached = this.admissibleCache;
    if (cached !== undefined)
      copy.admissibleCache = { commands: [...cached.commands], byCommand: new Map(cached.byCommand) };
    return copy;
  }

  /** Admissible commands, sorted by code point and de-duplicated, as TextWorld lists them. */
  admissibleCommands(): readonly string[] {
    return this.admissible().commands;
  }

  /** Plays one command (trimmed, matched exactly). */
  step(command: string): EngineStep {
    const op = this.admissible().byCommand.get(command.trim());
    if (op === undefined) return { feedback: 'Nothing happens.', valid: false };
    const branch = this.firstApplicableBranch(op);
    this.apply(branch);
    const bindings = this.opBindings(op);
    const text = this.game.actionTexts.get(this.game.ops[op]!.action)!;
    return { feedback: this.index.deriver.derive(text.feedback, bindings, this), valid: true };
  }

  /** The goal holds in the current state. */
  won(): boolean {
    for (const conj of this.game.goal) {
      let ok = true;
      for (const atom of conj.pos) if (this.state.truth[atom] === 0) ok = false;
      for (const atom of conj.neg) if (this.state.truth[atom] === 1) ok = false;
      if (ok) return true;
    }
    return false;
  }

  /** Whether a fluent or static atom (by predicate and entity ids) is true now. */
  holds(pred: string, ...ids: string[]): boolean {
    const args = ids.map((id) => this.game.entityIndex.get(id));
    if (args.some((a) => a === undefined)) return false;
    const atom = this.game.atomIndex.get(`${pred} ${args.join(' ')}`);
    return atom !== undefined && this.state.truth[atom] === 1;
  }

  /** Admissible actions with their PDDL action name and arguments (entity ids by parameter name). */
  admissibleActions(): { command: string; action: string; args: Record<string, string> }[] {
    const { byCommand } = this.admissible();
    return [...byCommand.entries()].map(([command, op]) => {
      const { action, args } = this.game.ops[op]!;
      const names = this.game.actionTexts.get(action)!.paramNames;
      const named: Record<string, string> = {};
      args.forEach((entity, i) => {
        named[names[i]!] = this.game.entityIds[entity]!;
      });
      return { command, action, args: named };
    });
  }

  /** Every true atom as `[pred, ...entity ids]`. */
  trueAtoms(): string[][] {
    const out: string[][] = [];
    for (let atom = 0; atom < this.state.truth.length; atom++) {
      if (this.state.truth[atom] === 1)
        out.push([
          this.game.atomPred[atom]!,
          ...this.game.atomArgs[atom]!.map((e) => this.game.entityIds[e]!),
        ]);
    }
    return out;
  }

  private admissible() {
    if (this.admissibleCache !== undefined) return this.admissibleCache;
    const byCommand = new Map<string, number>();
    for (let i = 0; i < this.state.applicableCount; i++) {
      const op = this.game.branches[this.state.applicable[i]!]!.op;
      const command = this.command(op);
      const previous = byCommand.get(command);
      if (previous === undefined || op < previous) byCommand.set(command, op);
    }
    const commands = [...byCommand.keys()].sort();
    this.admissibleCache = { commands, byCommand };
    return this.admissibleCache;
  }

  private command(op: number): string {
    const cached = this.index.staticCommands[op];
    if (cached !== undefined) return cached;
    const text = this.game.actionTexts.get(this.game.ops[op]!.action)!;
    const command = this.index.deriver.derive(text.template, this.opBindings(op), this);
    if (text.templateIsStatic) this.index.staticCommands[op] = command;
    return command;
  }

  private opBindings(op: number): Bindings {
    const { args, action } = this.game.ops[op]!;
    const text = this.game.actionTexts.get(action)!;
    const mapping = new Map<string, number>();
    const vars = new Map<string, number>();
    args.forEach((entity, i) => {
      mapping.set(text.paramKeys[i]!, entity);
      vars.set(text.paramNames[i]!, entity);
    });
    return { mapping, vars };
  }

  private firstApplicableBranch(op: number): GroundBranch {
    let best: number | undefined;
    for (let i = 0; i < this.state.applicableCount; i++) {
      const b = this.state.applicable[i]!;
      if (this.game.branches[b]!.op === op && (best === undefined || b < best)) best = b;
    }
    return this.game.branches[best!]!;
  }

  private apply(branch: GroundBranch): void {
    const fires = branch.effects.map(
      (effect) =>
        effect.condPos.every((atom) => this.state.truth[atom] === 1) &&
        effect.condNeg.every((atom) => this.state.truth[atom] === 0),
    );
    // Deletes first, then adds, so that an add wins over a delete of the same atom.
    branch.effects.forEach((effect, i) => {
      if (fires[i] && effect.negated) this.setTruth(effect.atom, 0);
    });
    branch.effects.forEach((effect, i) => {
      if (fires[i] && !effect.negated) this.setTruth(effect.atom, 1);
    });
    // TextWorld applies every listed effect to its fact view, conditional or not, adds before deletes.
    for (const effect of branch.effects) if (!effect.negated) this.state.text[effect.atom] = TEXT_TRUE;
    for (const effect of branch.effects) if (effect.negated) this.state.text[effect.atom] = TEXT_NEGATED;
    this.admissibleCache = undefined;
  }

  private setTruth(atom: number, value: 0 | 1): void {
    if (this.state.truth[atom] === value) return;
    this.state.truth[atom] = value;
    const becameTrue = value === 1;
    for (const b of this.index.posWatch[atom]!) this.adjust(b, becameTrue ? -1 : 1);
    for (const b of this.index.negWatch[atom]!) this.adjust(b, becameTrue ? 1 : -1);
  }

  private adjust(branch: number, delta: number): void {
    const before = this.state.unsat[branch]!;
    const after = before + delta;
    this.state.unsat[branch] = after;
    if (before === 0 && after > 0) this.removeApplicable(branch);
    else if (before > 0 && after === 0) this.addApplicable(branch);
  }

  private addApplicable(branch: number): void {
    this.state.applicablePos[branch] = this.state.applicableCount;
    this.state.applicable[this.state.applicableCount++] = branch;
  }

  private removeApplicable(branch: number): void {
    const at = this.state.applicablePos[branch]!;
    const last = this.state.applicable[--this.state.applicableCount]!;
    this.state.applicable[at] = last;
    this.state.applicablePos[last] = at;
    this.state.applicablePos[branch] = -1;
  }

  // FactView: TextWorld's conjunctive queries over the fact view, in its order.

  attribute(entity: number, attr: string): string | null {
    switch (attr) {
      case 'id':
        return this.game.entityIds[entity]!;
      case 'type':
        return this.game.entityTypes[entity]!;
      case 'name':
        return this.game.entityNames[entity]!;
      case 'definite':
        return 'the';
      case 'indefinite':
        return 'a';
      default:
        return null;
    }
  }

  assignments(query: Query, mapping: ReadonlyMap<string, number>, firstOnly: boolean): Map<string, number>[] {
    const results: Map<string, number>[] = [];
    const current = new Map(mapping);
    const used = new Set(mapping.values());
    const visit = (depth: number): boolean => {
      if (depth === query.length) {
        results.push(new Map(current));
        return firstOnly;
      }
      const atom = query[depth]!;
      const negated = atom.pred.startsWith('not_');
      const pred = negated ? atom.pred.slice(4) : atom.pred;
      const wanted = negated ? TEXT_NEGATED : TEXT_TRUE;
      if (negated && this.index.isStaticPred(pred)) return false;
      let candidates: Int32Array | undefined;
      atom.params.forEach((param, pos) => {
        const bound = current.get(`${param.name}:${param.type}`);
        if (bound !== undefined) {
          const list = this.index.atomsWithArg(pred, pos, bound);
          if (candidates === undefined || list.length < candidates.length) candidates = list;
        }
      });
      candidates ??= this.index.atomsOf(pred);
      for (const candidate of candidates) {
        if (this.state.text[candidate] !== wanted) continue;
        const args = this.game.atomArgs[candidate]!;
        if (args.length !== atom.params.length) continue;
        const added: string[] = [];
        let ok = true;
        for (let i = 0; i < args.length && ok; i++) {
          const param = atom.params[i]!;
          const key = `${param.name}:${param.type}`;
          const entity = args[i]!;
          const existing = current.get(key);
          if (existing === undefined) {
            if (used.has(entity) || !this.game.subtypes.get(param.type)?.has(this.game.entityTypes[entity]!))
              ok = false;
            else {
              current.set(key, entity);
              used.add(entity);
              added.push(key);
            }
          } else if (existing !== entity) ok = false;
        }
        const stop = ok && visit(depth + 1);
        for (const key of added) {
          used.delete(current.get(key)!);
          current.delete(key);
        }
        if (stop) return true;
      }
      return false;
    };
    visit(0);
    return results;
  }
}

function compareTuples(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return a.length - b.length;
}
