// Normal forms of PDDL conditions: negations pushed to atoms, then disjunctive normal form with
// existential variables lifted into each branch (as Fast Downward does before grounding).
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
      return dnf({ kind: 'and', parts: instances }, negated, objectsOfType);
    }
  }
}

/** The condition as a disjunction of conjunctions of literals. */
export function toBranches(formula: Formula, objectsOfType: ObjectsOfType): Branch[] {
  return dnf(formula, false, objectsOfType);
}
