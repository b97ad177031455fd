// Grounding of a compiled game's conditions and effects: interned atoms, the initial and static
// facts, and a grounder that binds variables through static facts first and enumerates the rest by
// type. Every binding tried and every literal grounded counts toward MAX_GROUNDINGS, over the whole
// game (one grounder per game).
import { ParseError } from '@pilotrl/core';
import type { GroundEffect } from './game';
import { MAX_GROUNDINGS } from './limits';
import type { Branch, FormulaOrigin, Literal } from './normalize';
import type { EffectLiteral, Problem, TypedName } from './pddl';

export const atomKey = (pred: string, args: readonly number[]) => `${pred} ${args.join(' ')}`;

/** The game's objects: ids and types by index, each type's subtypes, the objects of a type. */
export interface Entities {
  readonly entityIds: readonly string[];
  readonly entityTypes: readonly string[];
  readonly entityIndex: ReadonlyMap<string, number>;
  /** Type → itself and all its descendant types. */
  readonly subtypes: ReadonlyMap<string, ReadonlySet<string>>;
  /** Indices of the objects of `type` or a subtype of it, in declaration order (cached). */
  objectsOfType(type: string): number[];
}

/** The atoms of a game, each interned once: predicate and argument indices by atom id. */
export interface AtomTable {
  readonly atomPred: string[];
  readonly atomArgs: number[][];
  /** The id of `(pred args)`, added at the end when new. */
  intern(pred: string, args: number[]): number;
}

/**
 * An empty atom table for a game of `entityCount` objects. Atoms are interned under a numeric key
 * when small enough (grounding makes tens of thousands of lookups), under their text otherwise.
 */
export function createAtomTable(entityCount: number): AtomTable {
  const atomPred: string[] = [];
  const atomArgs: number[][] = [];
  const predIds = new Map<string, number>();
  const numericAtoms = new Map<number, number>();
  const textAtoms = new Map<string, number>();
  const numericKey = (pred: string, args: readonly number[]): number | undefined => {
    if (args.length > 3 || entityCount >= 4096) return undefined;
    let predId = predIds.get(pred);
    if (predId === undefined) {
      predId = predIds.size + 1;
      predIds.set(pred, predId);
    }
    let key = predId;
    for (let i = 0; i < 3; i++) key = key * 4096 + (args[i] ?? 4095);
    return key;
  };
  const intern = (pred: string, args: number[]): number => {
    const numeric = numericKey(pred, args);
    const text = numeric === undefined ? atomKey(pred, args) : undefined;
    let id = numeric === undefined ? textAtoms.get(text!) : numericAtoms.get(numeric);
    if (id === undefined) {
      id = atomPred.length;
      if (numeric === undefined) textAtoms.set(text!, id);
      else numericAtoms.set(numeric, id);
      atomPred.push(pred);
      atomArgs.push(args);
    }
    return id;
  };
  return { atomPred, atomArgs, intern };
}

/** The problem's initial facts: all of them as atoms, and the static ones (never in an effect) by predicate. */
export interface InitialFacts {
  readonly initialAtoms: number[];
  readonly staticTuples: ReadonlyMap<string, number[][]>;
  /** `atomKey` of every static fact. */
  readonly staticSet: ReadonlySet<string>;
  /** The static tuples of `pred` whose argument `pos` is `entity` (cached). */
  staticMatches(pred: string, pos: number, entity: number): number[][];
}

/** Interns the initial facts; a fact naming an undeclared object is a ParseError of `source`. */
export function compileInitialFacts(
  init: Problem['init'],
  entityIndex: ReadonlyMap<string, number>,
  fluentPredicates: ReadonlySet<string>,
  atoms: AtomTable,
  source: string,
): InitialFacts {
  const staticTuples = new Map<string, number[][]>();
  const staticSet = new Set<string>();
  const initialAtoms: number[] = [];
  for (const [pred, ...args] of init) {
    const indices = args.map((name) => {
      const e = entityIndex.get(name);
      if (e === undefined)
        throw new ParseError(
          source,
          undefined,
          `initial fact (${pred} ${args.join(' ')}) names an undeclared object "${name}"`,
        );
      return e;
    });
    initialAtoms.push(atoms.intern(pred!, indices));
    if (!fluentPredicates.has(pred!)) {
      staticSet.add(atomKey(pred!, indices));
      const list = staticTuples.get(pred!) ?? [];
      staticTuples.set(pred!, list);
      list.push(indices);
    }
  }
  const staticByArg = new Map<string, number[][]>();
  const staticMatches = (pred: string, pos: number, entity: number): number[][] => {
    const key = `${pred}/${pos}/${entity}`;
    let list = staticByArg.get(key);
    if (list === undefined) {
      list = (staticTuples.get(pred) ?? []).filter((tuple) => tuple[pos] === entity);
      staticByArg.set(key, list);
    }
    return list;
  };
  return { initialAtoms, staticTuples, staticSet, staticMatches };
}

export interface Grounder {
  /** Calls `emit` with every binding of `vars` under which the static literals hold. */
  ground(
    vars: readonly TypedName[],
    literals: readonly Literal[],
    where: FormulaOrigin,
    emit: (binding: Map<string, number>) => void,
  ): void;
  /** The atom of a fluent literal under `binding`; an unknown name is a ParseError of `where`. */
  fluentAtom(lit: Literal | EffectLiteral, binding: ReadonlyMap<string, number>, where: string): number;
  /**
   * The ground effects of an action under `binding`, given its fluent precondition `pre`, with
   * the deletes that an add voids and the effects that cannot change their atom left out.
   */
  groundEffects(
    effects: readonly EffectLiteral[],
    conditions: readonly (Branch[] | undefined)[],
    binding: ReadonlyMap<string, number>,
    pre: ReadonlyMap<number, boolean>,
    where: FormulaOrigin,
  ): GroundEffect[];
}

export interface GrounderInput {
  readonly entities: Entities;
  readonly fluentPredicates: ReadonlySet<string>;
  readonly facts: InitialFacts;
  readonly atoms: AtomTable;
}

/** A grounder over one game; its count of grounding steps spans every call. */
export function createGrounder({ entities, fluentPredicates, facts, atoms }: GrounderInput): Grounder {
  const { entityIndex, entityTypes, subtypes, objectsOfType } = entities;
  const { staticSet, staticTuples, staticMatches } = facts;
  const resolve = (term: string, binding: ReadonlyMap<string, number>): number | undefined =>
    term.startsWith('?') ? binding.get(term) : entityIndex.get(term);
  let groundings = 0;
  const countGrounding = (where: FormulaOrigin, steps = 1) => {
    groundings += steps;
    if (groundings <= MAX_GROUNDINGS) return;
    throw new ParseError(
      where.source,
      where.line,
      `grounding ${where.what} takes the game past ${MAX_GROUNDINGS} steps (bindings tried, literals grounded); the limit is ${MAX_GROUNDINGS} (MAX_GROUNDINGS)`,
    );
  };

  const ground: Grounder['ground'] = (vars, literals, where, emit) => {
    const varTypes = new Map(vars.map((v) => [v.name, v.type]));
    const binding = new Map<string, number>();
    const staticPositive = literals.filter(
      (l) => !l.negated && l.pred !== '=' && !fluentPredicates.has(l.pred),
    );
    const filters = literals.filter((l) => l.pred === '=' || (l.negated && !fluentPredicates.has(l.pred)));
    const fits = (name: string, entity: number) =>
      subtypes.get(varTypes.get(name) ?? 'object')?.has(entityTypes[entity]!) ?? false;
    const passes = (): boolean => {
      for (const lit of filters) {
        const args = lit.args.map((a) => resolve(a, binding));
        if (args.some((a) => a === undefined)) continue;
        const holds =
          lit.pred === '=' ? args[0] === args[1] : staticSet.has(atomKey(lit.pred, args as number[]));
        if (holds === lit.negated) return false;
      }
      return true;
    };
    const unboundVars = () => vars.filter((v) => !binding.has(v.name));
    const enumerate = (rest: readonly TypedName[]) => {
      if (rest.length === 0) {
        if (!passes()) return;
        countGrounding(where, literals.length);
        emit(binding);
        return;
      }
      const [first, ...others] = rest as [TypedName, ...TypedName[]];
      for (const entity of objectsOfType(first.type)) {
        countGrounding(where);
        binding.set(first.name, entity);
        if (passes()) enumerate(others);
        binding.delete(first.name);
      }
    };
    const join = (remaining: readonly Literal[]) => {
      if (remaining.length === 0) {
        enumerate(unboundVars());
        return;
      }
      let bestIndex = 0;
      let bestBound = -1;
      remaining.forEach((lit, index) => {
        const bound = lit.args.filter((a) => resolve(a, binding) !== undefined).length;
        if (bound > bestBound) {
          bestBound = bound;
          bestIndex = index;
        }
      });
      const lit = remaining[bestIndex]!;
      const rest = remaining.filter((_, index) => index !== bestIndex);
      const resolved = lit.args.map((a) => resolve(a, binding));
      if (lit.args.some((a, i) => !a.startsWith('?') && resolved[i] === undefined)) return;
      const boundPos = resolved.findIndex((r) => r !== undefined);
      const tuples =
        boundPos >= 0
          ? staticMatches(lit.pred, boundPos, resolved[boundPos]!)
          : (staticTuples.get(lit.pred) ?? []);
      for (const tuple of tuples) {
        countGrounding(where);
        const added: string[] = [];
        let ok = tuple.length === lit.args.length;
        for (let i = 0; ok && i < lit.args.length; i++) {
          const want = resolve(lit.args[i]!, binding);
          if (want === undefined) {
            if (!fits(lit.args[i]!, tuple[i]!)) ok = false;
            else {
              binding.set(lit.args[i]!, tuple[i]!);
              added.push(lit.args[i]!);
            }
          } else if (want !== tuple[i]) ok = false;
        }
        if (ok && passes()) join(rest);
        for (const name of added) binding.delete(name);
      }
    };
    join(staticPositive);
  };

  const fluentAtom: Grounder['fluentAtom'] = (lit, binding, where) => {
    const args = lit.args.map((a) => {
      const e = resolve(a, binding);
      if (e === undefined)
        throw new ParseError(
          where,
          undefined,
          `unknown object or unbound variable "${a}" in (${lit.pred} ...)`,
        );
      return e;
    });
    return atoms.intern(lit.pred, args);
  };

  const groundEffects: Grounder['groundEffects'] = (effects, conditions, binding, pre, where) => {
    const out: GroundEffect[] = [];
    countGrounding(where, effects.length);
    effects.forEach((effect, index) => {
      const instances: ReadonlyMap<string, number>[] = [];
      const base = new Map(effect.vars.length === 0 ? [] : binding);
      const expand = (vars: readonly TypedName[]) => {
        if (vars.length === 0) {
          instances.push(new Map(base));
          return;
        }
        const [first, ...rest] = vars as [TypedName, ...TypedName[]];
        for (const entity of objectsOfType(first.type)) {
          countGrounding(where);
          base.set(first.name, entity);
          expand(rest);
        }
        base.delete(first.name);
      };
      if (effect.vars.length === 0) instances.push(binding);
      else expand(effect.vars);
      for (const instance of instances) {
        const condPos: number[] = [];
        const condNeg: number[] = [];
        let possible = true;
        for (const lit of conditions[index]?.[0]?.literals ?? []) {
          const args = lit.args.map((a) => resolve(a, instance));
          if (lit.pred === '=' || !fluentPredicates.has(lit.pred)) {
            const holds =
              lit.pred === '=' ? args[0] === args[1] : staticSet.has(atomKey(lit.pred, args as number[]));
            if (holds === lit.negated) possible = false;
            continue;
          }
          const atom = fluentAtom(lit, instance, where.source);
          const known = pre.get(atom);
          if (known === undefined) (lit.negated ? condNeg : condPos).push(atom);
          else if (known === lit.negated) possible = false;
        }
        if (!possible) continue;
        const atom = fluentAtom(effect, instance, where.source);
        out.push({ atom, negated: effect.negated, condPos, condNeg });
      }
    });
    // As in Fast Downward: a delete is void when the same atom is also added under the same (or
    // no) condition; then effects that cannot change their atom given the precondition are dropped.
    const sameCondition = (a: GroundEffect, b: GroundEffect) =>
      a.condPos.join() === b.condPos.join() && a.condNeg.join() === b.condNeg.join();
    const unconditional = (e: GroundEffect) => e.condPos.length === 0 && e.condNeg.length === 0;
    return out
      .filter(
        (effect) =>
          !effect.negated ||
          !out.some(
            (o) => !o.negated && o.atom === effect.atom && (sameCondition(effect, o) || unconditional(o)),
          ),
      )
      .filter((effect) => pre.get(effect.atom) !== !effect.negated);
  };

  return { ground, fluentAtom, groundEffects };
}
