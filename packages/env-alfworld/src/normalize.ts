// Normal forms of PDDL conditions: negations pushed to atoms, then disjunctive normal form with
// existential variables lifted into each branch (as Fast Downward does before grounding). The size
// of the normal form is computed from the formula before it is expanded, and refused over the limits:
// a conjunction of k disjunctions of n has n^k branches.
import { ParseError } from '@pilotrl/core';
import { MAX_DNF_BRANCHES, MAX_DNF_LITERALS } from './limits';
import type { Formula, TypedName } from './pddl';

export interface Literal {
  readonly pred: string;
  readonly args: readonly string[];
  readonly negated: boolean;
}

export interface Branch {
  /** Variables introduced by `exists`, renamed apart. */
  readonly vars: readonly TypedName[];
  readonly literals: readonly Literal[];
}

/** Lists the objects of a type, for expanding `forall`. */
export type ObjectsOfType = (type: string) => readonly string[];

/** The formula a normal form is taken of, for errors: its file, line and owner (`the goal`). */
export interface FormulaOrigin {
  readonly source: string;
  readonly line: number | undefined;
  readonly what: string;
}

/** Size of a disjunctive normal form: its branches and the literals over all of them. */
export interface DnfSize {
  readonly branches: number;
  readonly literals: number;
}

let freshCounter = 0;

function substitute(formula: Formula, subst: ReadonlyMap<string, string>): Formula {
  switch (formula.kind) {
    case 'true':
      return formula;
    case 'atom':
      return { kind: 'atom', pred: formula.pred, args: formula.args.map((arg) => subst.get(arg) ?? arg) };
    case 'not':
      return { kind: 'not', arg: substitute(formula.arg, subst) };
    case 'and':
    case 'or':
      return { kind: formula.kind, parts: formula.parts.map((part) => substitute(part, subst)) };
    case 'exists':
    case 'forall': {
      const inner = new Map(subst);
      for (const v of formula.vars) inner.delete(v.name);
      return { kind: formula.kind, vars: formula.vars, body: substitute(formula.body, inner) };
    }
  }
}

function dnf(formula: Formula, negated: boolean, objectsOfType: ObjectsOfType): Branch[] {
  switch (formula.kind) {
    case 'true':
      return negated ? [] : [{ vars: [], literals: [] }];
    case 'atom':
      return [{ vars: [], literals: [{ pred: formula.pred, args: formula.args, negated }] }];
    case 'not':
      return dnf(formula.arg, !negated, objectsOfType);
    case 'and':
    case 'or': {
      const conjunctive = (formula.kind === 'and') !== negated;
      const parts = formula.parts.map((part) => dnf(part, negated, objectsOfType));
      if (!conjunctive) return parts.flat();
      // An unsatisfiable part empties the product; stopping here keeps every partial product within
      // the size checked beforehand.
      if (parts.some((part) => part.length === 0)) return [];
      let result: Branch[] = [{ vars: [], literals: [] }];
      for (const part of parts) {
        const next: Branch[] = [];
        for (const left of result) {
          for (const right of part) {
            next.push({
              vars: [...left.vars, ...right.vars],
              literals: [...left.literals, ...right.literals],
            });
          }
        }
        result = next;
      }
      return result;
    }
    case 'exists':
    case 'forall': {
      const existential = (formula.kind === 'exists') !== negated;
      if (existential) {
        const subst = new Map<string, string>();
        const vars = formula.vars.map((v) => {
          const fresh = `${v.name}#${++freshCounter}`;
          subst.set(v.name, fresh);
          return { name: fresh, type: v.type };
        });
        return dnf(substitute(formula.body, subst), negated, objectsOfType).map((branch) => ({
          vars: [...vars, ...branch.vars],
          literals: branch.literals,
        }));
      }
      let instances: Formula[] = [formula.body];
      for (const v of formula.vars) {
        instances = instances.flatMap((body) =>
          objectsOfType(v.type).map((object) => substitute(body, new Map([[v.name, object]]))),
        );
      }
      // (forall ...) is the conjunction of the copies; a negated (exists ...) the negation of their
      // disjunction, a conjunction again once the negation is pushed in.
      return dnf(
        { kind: formula.kind === 'forall' ? 'and' : 'or', parts: instances },
        negated,
        objectsOfType,
      );
    }
  }
}

/**
 * The largest normal form that expanding `formula` builds on the way (the whole formula's, or a
 * part's when an unsatisfiable sibling empties the whole), computed without expanding it. Each copy
 * of a `forall` body counts at least one literal per node of the body, so that expanding a body with
 * few literals over many objects is bounded too.
 */
export function dnfSize(formula: Formula, objectsOfType: ObjectsOfType): DnfSize {
  let peakBranches = 0;
  let peakLiterals = 0;
  const seen = (size: DnfSize & { nodes: number }) => {
    peakBranches = Math.max(peakBranches, size.branches);
    peakLiterals = Math.max(peakLiterals, size.literals);
    return size;
  };
  const conjoin = (a: DnfSize, b: DnfSize): DnfSize => ({
    branches: a.branches * b.branches,
    literals: a.literals * b.branches + b.literals * a.branches,
  });
  const measure = (f: Formula, negated: boolean): DnfSize & { nodes: number } => {
    switch (f.kind) {
      case 'true':
        return seen({ branches: negated ? 0 : 1, literals: 0, nodes: 1 });
      case 'atom':
        return seen({ branches: 1, literals: 1, nodes: 1 });
      case 'not': {
        const inner = measure(f.arg, !negated);
        return seen({ ...inner, nodes: inner.nodes + 1 });
      }
      case 'and':
      case 'or': {
        const conjunctive = (f.kind === 'and') !== negated;
        let size: DnfSize = conjunctive ? { branches: 1, literals: 0 } : { branches: 0, literals: 0 };
        let nodes = 1;
        for (const part of f.parts) {
          const partSize = measure(part, negated);
          nodes += partSize.nodes;
          size = conjunctive
            ? conjoin(size, partSize)
            : { branches: size.branches + partSize.branches, literals: size.literals + partSize.literals };
        }
        return seen({ ...size, nodes });
      }
      case 'exists':
      case 'forall': {
        const body = measure(f.body, negated);
        const nodes = body.nodes + 1;
        if ((f.kind === 'exists') !== negated) return seen({ ...body, nodes });
        let copies = 1;
        for (const v of f.vars) copies *= objectsOfType(v.type).length;
        if (copies === 0) return seen({ branches: 1, literals: 0, nodes });
        // The conjunction of `copies` copies of the body, in closed form.
        const branches = body.branches ** copies;
        const literals =
          body.branches === 0
            ? 0
            : copies * Math.max(body.literals, body.nodes) * body.branches ** (copies - 1);
        return seen({ branches, literals, nodes });
      }
    }
  };
  measure(formula, false);
  return { branches: peakBranches, literals: peakLiterals };
}

/**
 * The condition as a disjunction of conjunctions of literals; refused with a ParseError naming
 * `origin` when the normal form would pass `MAX_DNF_BRANCHES` or `MAX_DNF_LITERALS`.
 */
export function toBranches(formula: Formula, objectsOfType: ObjectsOfType, origin: FormulaOrigin): Branch[] {
  const size = dnfSize(formula, objectsOfType);
  if (size.branches > MAX_DNF_BRANCHES) {
    throw new ParseError(
      origin.source,
      origin.line,
      `${origin.what} expands to ${formatCount(size.branches)} alternatives in disjunctive normal form; the limit is ${MAX_DNF_BRANCHES} (MAX_DNF_BRANCHES)`,
    );
  }
  if (size.literals > MAX_DNF_LITERALS) {
    throw new ParseError(
      origin.source,
      origin.line,
      `${origin.what} expands to ${formatCount(size.literals)} literals in disjunctive normal form; the limit is ${MAX_DNF_LITERALS} (MAX_DNF_LITERALS)`,
    );
  }
  return dnf(formula, false, objectsOfType);
}

/** An exact count while it is one, else its order of magnitude. */
function formatCount(count: number): string {
  if (count <= Number.MAX_SAFE_INTEGER) return String(count);
  return Number.isFinite(count) ? `about ${count.toExponential(1)}` : 'more than 1e308';
}
