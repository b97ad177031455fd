// Plays a compiled game: keeps the PDDL state and TextWorld's fact view (which also records atoms
// deleted during play as `not_<pred>` facts), tracks applicable operators incrementally, and
// renders commands and feedback from the grammar.
import type { CompiledGame, GroundBranch } from './game';
import { type Bindings, Deriver, type FactView, type Query } from './text-grammar';

const TEXT_ABSENT = 0;
const TEXT_TRUE = 1;
const TEXT_NEGATED = 2;

export interface EngineStep {
  readonly feedback: string;
  /** The command matched an admissible command and was executed. */
  readonly valid: boolean;
}

export class GameEngine implements FactView {
  readonly game: CompiledGame;
  private readonly deriver: Deriver;
  private readonly truth: Uint8Array;
  private readonly text: Uint8Array;
  private readonly unsat: Int32Array;
  private readonly posWatch: Int32Array[];
  private readonly negWatch: Int32Array[];
  private readonly applicable: Int32Array;
  private readonly applicablePos: Int32Array;
  private applicableCount = 0;
  private readonly commandCache: (string | undefined)[];
  private readonly isStaticPred: (pred: string) => boolean;
  private readonly predAtoms = new Map<string, Int32Array>();
  private readonly argAtoms = new Map<string, Int32Array>();
  private admissibleCache: { commands: string[]; byCommand: Map<string, number> } | undefined;

  constructor(game: CompiledGame) {
    this.game = game;
    this.deriver = new Deriver(game.rules, `${game.problemName}`);
    const atoms = game.atomPred.length;
    this.truth = new Uint8Array(atoms);
    this.text = new Uint8Array(atoms);
    this.unsat = new Int32Array(game.branches.length);
    this.applicable = new Int32Array(game.branches.length);
    this.applicablePos = new Int32Array(game.branches.length).fill(-1);
    this.commandCache = new Array(game.ops.length);
    this.isStaticPred = (pred) => !game.fluentPredicates.has(pred);
    const pos: number[][] = Array.from({ length: atoms }, () => []);
    const neg: number[][] = Array.from({ length: atoms }, () => []);
    game.branches.forEach((branch, b) => {
      for (const atom of branch.pos) pos[atom]!.push(b);
      for (const atom of branch.neg) neg[atom]!.push(b);
    });
    this.posWatch = pos.map((list) => Int32Array.from(list));
    this.negWatch = neg.map((list) => Int32Array.from(list));
    this.reset();
  }

  /** Back to the initial state; returns the intro text. */
  reset(): string {
    const { game } = this;
    this.truth.fill(0);
    this.text.fill(TEXT_ABSENT);
    for (const atom of game.initialAtoms) {
      this.truth[atom] = 1;
      this.text[atom] = TEXT_TRUE;
    }
    this.applicableCount = 0;
    this.applicablePos.fill(-1);
    game.branches.forEach((branch, b) => {
      let count = 0;
      for (const atom of branch.pos) if (this.truth[atom] === 0) count++;
      for (const atom of branch.neg) if (this.truth[atom] === 1) count++;
      this.unsat[b] = count;
      if (count === 0) this.addApplicable(b);
    });
    this.admissibleCache = undefined;
    return this.deriver.derive(game.intro, { mapping: new Map(), vars: new Map() }, this);
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
    return { feedback: this.deriver.derive(text.feedback, bindings, this), valid: true };
  }

  /** The goal holds in the current state. */
  won(): boolean {
    for (const conj of this.game.goal) {
      let ok = true;
      for (const atom of conj.pos) if (this.truth[atom] === 0) ok = false;
      for (const atom of conj.neg) if (this.truth[atom] === 1) ok = false;
      if (ok) return true;
    }
    return false;
  }

  /** Whether a fluent or static atom (by predicate and entity ids) is true now. */
  holds(pred: string, ...ids: string[]): boolean {
    const args = ids.map((id) => this.game.entityIndex.get(id));
    if (args.some((a) => a === undefined)) return false;
    const atom = this.game.atomIndex.get(`${pred} ${args.join(' ')}`);
    return atom !== undefined && this.truth[atom] === 1;
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
    for (let atom = 0; atom < this.truth.length; atom++) {
      if (this.truth[atom] === 1)
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
    for (let i = 0; i < this.applicableCount; i++) {
      const op = this.game.branches[this.applicable[i]!]!.op;
      const command = this.command(op);
      const previous = byCommand.get(command);
      if (previous === undefined || op < previous) byCommand.set(command, op);
    }
    const commands = [...byCommand.keys()].sort();
    this.admissibleCache = { commands, byCommand };
    return this.admissibleCache;
  }

  private command(op: number): string {
    const cached = this.commandCache[op];
    if (cached !== undefined) return cached;
    const text = this.game.actionTexts.get(this.game.ops[op]!.action)!;
    const command = this.deriver.derive(text.template, this.opBindings(op), this);
    if (text.templateIsStatic) this.commandCache[op] = command;
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
    for (let i = 0; i < this.applicableCount; i++) {
      const b = this.applicable[i]!;
      if (this.game.branches[b]!.op === op && (best === undefined || b < best)) best = b;
    }
    return this.game.branches[best!]!;
  }

  private apply(branch: GroundBranch): void {
    const fires = branch.effects.map(
      (effect) =>
        effect.condPos.every((atom) => this.truth[atom] === 1) &&
        effect.condNeg.every((atom) => this.truth[atom] === 0),
    );
    // Deletes first, then adds, so that an add wins over a delete of the same atom.
    branch.effects.forEach((effect, i) => {
      if (fires[i] && effect.negated) this.setTruth(effect.atom, 0);
    });
    branch.effects.forEach((effect, i) => {
      if (fires[i] && !effect.negated) this.setTruth(effect.atom, 1);
    });
    // TextWorld applies every listed effect to its fact view, conditional or not, adds before deletes.
    for (const effect of branch.effects) if (!effect.negated) this.text[effect.atom] = TEXT_TRUE;
    for (const effect of branch.effects) if (effect.negated) this.text[effect.atom] = TEXT_NEGATED;
    this.admissibleCache = undefined;
  }

  private setTruth(atom: number, value: 0 | 1): void {
    if (this.truth[atom] === value) return;
    this.truth[atom] = value;
    const becameTrue = value === 1;
    for (const b of this.posWatch[atom]!) this.adjust(b, becameTrue ? -1 : 1);
    for (const b of this.negWatch[atom]!) this.adjust(b, becameTrue ? 1 : -1);
  }

  private adjust(branch: number, delta: number): void {
    const before = this.unsat[branch]!;
    const after = before + delta;
    this.unsat[branch] = after;
    if (before === 0 && after > 0) this.removeApplicable(branch);
    else if (before > 0 && after === 0) this.addApplicable(branch);
  }

  private addApplicable(branch: number): void {
    this.applicablePos[branch] = this.applicableCount;
    this.applicable[this.applicableCount++] = branch;
  }

  private removeApplicable(branch: number): void {
    const at = this.applicablePos[branch]!;
    const last = this.applicable[--this.applicableCount]!;
    this.applicable[at] = last;
    this.applicablePos[last] = at;
    this.applicablePos[branch] = -1;
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
      if (negated && this.isStaticPred(pred)) return false;
      let candidates: Int32Array | undefined;
      atom.params.forEach((param, pos) => {
        const bound = current.get(`${param.name}:${param.type}`);
        if (bound !== undefined) {
          const list = this.atomsWithArg(pred, pos, bound);
          if (candidates === undefined || list.length < candidates.length) candidates = list;
        }
      });
      candidates ??= this.atomsOf(pred);
      for (const candidate of candidates) {
        if (this.text[candidate] !== wanted) continue;
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

  private atomsOf(pred: string): Int32Array {
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

  private atomsWithArg(pred: string, pos: number, entity: number): Int32Array {
    const key = `${pred}/${pos}/${entity}`;
    let list = this.argAtoms.get(key);
    if (list === undefined) {
      list = this.atomsOf(pred).filter((atom) => this.game.atomArgs[atom]![pos] === entity);
      this.argAtoms.set(key, list);
    }
    return list;
  }
}

function compareTuples(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return a.length - b.length;
}
