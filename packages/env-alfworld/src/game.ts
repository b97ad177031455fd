// Compiles a TextWorld PDDL game (domain + problem + twl2 grammar) into a ground, indexed form:
// interned atoms, ground operators with fluent preconditions and effects, a ground goal, entity
// names, and parsed text rules. One compiled game serves any number of episodes.
import { ParseError } from '@pilotrl/core';
import { MAX_GROUNDINGS } from './limits';
import { alfworldNames, type Naming } from './names';
import { type Branch, type FormulaOrigin, type Literal, toBranches } from './normalize';
import {
  type Domain,
  type EffectLiteral,
  type Problem,
  parseDomain,
  parseProblem,
  type TypedName,
} from './pddl';
import {
  type CompiledRule,
  compileRules,
  type GrammarSymbol,
  parseSymbols,
  referencedRules,
} from './text-grammar';
import { parseGrammarFile } from './twl2';

export interface GameSources {
  readonly domain: string;
  readonly problem: string;
  readonly grammar: string;
  /** Names used in errors for the three texts. */
  readonly names?: { readonly domain?: string; readonly problem?: string; readonly grammar?: string };
  /** `alfworld` (default): ALFWorld's demangled names; `id`: TextWorld's plain ids. */
  readonly naming?: Naming;
}

export interface GroundEffect {
  readonly atom: number;
  readonly negated: boolean;
  /** Effect condition (from `when`), over fluent atoms; empty when unconditional. */
  readonly condPos: readonly number[];
  readonly condNeg: readonly number[];
}

/** One conjunctive precondition branch of a ground action. */
export interface GroundBranch {
  readonly op: number;
  readonly pos: readonly number[];
  readonly neg: readonly number[];
  readonly effects: readonly GroundEffect[];
}

export interface GroundOp {
  readonly action: string;
  /** Parameter placeholder keys (`name:type`) and names, aligned with `args`. */
  readonly args: readonly number[];
}

export interface ActionText {
  readonly paramKeys: readonly string[];
  readonly paramNames: readonly string[];
  readonly template: readonly GrammarSymbol[];
  readonly feedback: readonly GrammarSymbol[];
  /** The template reads only facts that never change, so a command can be cached per operator. */
  readonly templateIsStatic: boolean;
}

export interface CompiledGame {
  readonly domainName: string;
  readonly problemName: string;
  readonly entityIds: readonly string[];
  readonly entityTypes: readonly string[];
  readonly entityNames: readonly string[];
  readonly entityIndex: ReadonlyMap<string, number>;
  /** Type → itself and all its descendant types. */
  readonly subtypes: ReadonlyMap<string, ReadonlySet<string>>;
  readonly atomPred: readonly string[];
  readonly atomArgs: readonly (readonly number[])[];
  readonly atomIndex: ReadonlyMap<string, number>;
  readonly fluentPredicates: ReadonlySet<string>;
  /** Atoms true at the start (static and fluent). */
  readonly initialAtoms: readonly number[];
  readonly ops: readonly GroundOp[];
  readonly branches: readonly GroundBranch[];
  readonly goal: readonly { readonly pos: readonly number[]; readonly neg: readonly number[] }[];
  readonly actionTexts: ReadonlyMap<string, ActionText>;
  readonly rules: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly intro: readonly GrammarSymbol[];
  readonly grammarText: string;
}

const atomKey = (pred: string, args: readonly number[]) => `${pred} ${args.join(' ')}`;

export function compileGame(sources: GameSources): CompiledGame {
  const domainName = sources.names?.domain ?? 'domain';
  const problemName = sources.names?.problem ?? 'problem';
  const grammarName = sources.names?.grammar ?? 'grammar';
  const domain = parseDomain(sources.domain, domainName);
  const problem = parseProblem(sources.problem, problemName, domain);
  if (problem.domain !== '' && problem.domain !== domain.name) {
    throw new ParseError(
      problemName,
      undefined,
      `problem is for domain "${problem.domain}", not "${domain.name}"`,
    );
  }
  return compileParsed(domain, problem, sources, grammarName);
}

function compileParsed(
  domain: Domain,
  problem: Problem,
  sources: GameSources,
  grammarName: string,
): CompiledGame {
  // Types and objects.
  const parent = new Map(domain.typeParents);
  const subtypes = new Map<string, Set<string>>();
  const allTypes = new Set<string>(['object', ...parent.keys(), ...parent.values()]);
  for (const type of allTypes) subtypes.set(type, new Set([type]));
  for (const type of allTypes) {
    let current: string | undefined = type;
    const seen = new Set<string>();
    while (current !== undefined && !seen.has(current)) {
      seen.add(current);
      subtypes.get(current)?.add(type);
      current = current === 'object' ? undefined : (parent.get(current) ?? 'object');
    }
  }
  const entityIds: string[] = [];
  const entityTypes: string[] = [];
  const entityIndex = new Map<string, number>();
  for (const object of [...domain.constants, ...problem.objects]) {
    if (entityIndex.has(object.name)) continue;
    entityIndex.set(object.name, entityIds.length);
    entityIds.push(object.name);
    entityTypes.push(object.type);
  }
  const objectsOfTypeCache = new Map<string, number[]>();
  const objectsOfType = (type: string): number[] => {
    let list = objectsOfTypeCache.get(type);
    if (list === undefined) {
      const accepted = subtypes.get(type);
      list = [];
      for (let e = 0; e < entityIds.length; e++) if (accepted?.has(entityTypes[e]!)) list.push(e);
      objectsOfTypeCache.set(type, list);
    }
    return list;
  };
  const objectNamesOfType = (type: string) => objectsOfType(type).map((e) => entityIds[e]!);

  // Normal forms of every condition, each refused over the size limits before any grounding.
  const goalBranches = toBranches(problem.goal, objectNamesOfType, {
    source: problemName(sources),
    line: undefined,
    what: 'the goal',
  });
  const normalForms = domain.actions.map((action) => {
    const origin = (what: string) => ({
      source: domainName(sources),
      line: action.line,
      what: `action ${action.name}: ${what}`,
    });
    return {
      actionBranches: toBranches(action.precondition, objectNamesOfType, origin('the precondition')),
      effectConditions: action.effects.map((effect) =>
        effect.condition === undefined
          ? undefined
          : toBranches(
              effect.condition,
              objectNamesOfType,
              origin(`the condition of an effect on ${effect.pred}`),
            ),
      ),
    };
  });

  // Facts: static predicates never appear in an effect.
  const fluentPredicates = new Set<string>();
  for (const action of domain.actions) for (const effect of action.effects) fluentPredicates.add(effect.pred);
  const atomPred: string[] = [];
  const atomArgs: number[][] = [];
  // Atoms are interned under a numeric key when small enough (grounding makes tens of thousands of
  // lookups), under their text otherwise.
  const predIds = new Map<string, number>();
  const numericAtoms = new Map<number, number>();
  const textAtoms = new Map<string, number>();
  const numericKey = (pred: string, args: readonly number[]): number | undefined => {
    if (args.length > 3 || entityIds.length >= 4096) return undefined;
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
  const staticTuples = new Map<string, number[][]>();
  const staticSet = new Set<string>();
  const initialAtoms: number[] = [];
  for (const [pred, ...args] of problem.init) {
    const indices = args.map((name) => {
      const e = entityIndex.get(name);
      if (e === undefined)
        throw new ParseError(
          problemName(sources),
          undefined,
          `initial fact (${pred} ${args.join(' ')}) names an undeclared object "${name}"`,
        );
      return e;
    });
    initialAtoms.push(intern(pred!, indices));
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

  // Grounding: bind variables through static facts first, then enumerate the rest by type. Every
  // binding tried and every literal grounded is a step toward MAX_GROUNDINGS, over the whole game.
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

  const ground = (
    vars: readonly TypedName[],
    literals: readonly Literal[],
    where: FormulaOrigin,
    emit: (binding: Map<string, number>) => void,
  ) => {
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

  const fluentAtom = (
    lit: Literal | EffectLiteral,
    binding: ReadonlyMap<string, number>,
    where: string,
  ): number => {
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
    return intern(lit.pred, args);
  };

  // Actions.
  const ops: GroundOp[] = [];
  const branches: GroundBranch[] = [];
  const opIndex = new Map<string, number>();
  for (const [actionIndex, action] of domain.actions.entries()) {
    const { actionBranches, effectConditions } = normalForms[actionIndex]!;
    effectConditions.forEach((cond) => {
      if (cond !== undefined && (cond.length !== 1 || cond[0]!.vars.length > 0)) {
        throw new ParseError(
          sources.names?.domain ?? 'domain',
          action.line,
          `action ${action.name}: only conjunctive (when ...) conditions are supported`,
        );
      }
    });
    for (const branch of actionBranches) {
      const where = { source: domainName(sources), line: action.line, what: `action ${action.name}` };
      ground([...action.params, ...branch.vars], branch.literals, where, (binding) => {
        const pre = new Map<number, boolean>();
        const pos: number[] = [];
        const neg: number[] = [];
        for (const lit of branch.literals) {
          if (lit.pred === '=' || !fluentPredicates.has(lit.pred)) continue;
          const atom = fluentAtom(lit, binding, domainName(sources));
          if (pre.get(atom) === !lit.negated) continue;
          pre.set(atom, !lit.negated);
          (lit.negated ? neg : pos).push(atom);
        }
        const effects = groundEffects(action.effects, effectConditions, binding, pre, where);
        if (effects.length === 0) return;
        const args = action.params.map((p) => binding.get(p.name)!);
        const key = `${action.name} ${args.join(' ')}`;
        let op = opIndex.get(key);
        if (op === undefined) {
          op = ops.length;
          opIndex.set(key, op);
          ops.push({ action: action.name, args });
        }
        branches.push({ op, pos, neg, effects });
      });
    }
  }

  function groundEffects(
    effects: readonly EffectLiteral[],
    conditions: readonly (Branch[] | undefined)[],
    binding: ReadonlyMap<string, number>,
    pre: ReadonlyMap<number, boolean>,
    where: FormulaOrigin,
  ): GroundEffect[] {
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
          const atom = fluentAtom(lit, instance, domainName(sources));
          const known = pre.get(atom);
          if (known === undefined) (lit.negated ? condNeg : condPos).push(atom);
          else if (known === lit.negated) possible = false;
        }
        if (!possible) continue;
        const atom = fluentAtom(effect, instance, domainName(sources));
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
  }

  // Goal.
  const goal: { pos: number[]; neg: number[] }[] = [];
  for (const branch of goalBranches) {
    ground(
      branch.vars,
      branch.literals,
      { source: problemName(sources), line: undefined, what: 'the goal' },
      (binding) => {
        const pos: number[] = [];
        const neg: number[] = [];
        for (const lit of branch.literals) {
          if (lit.pred === '=' || !fluentPredicates.has(lit.pred)) continue;
          (lit.negated ? neg : pos).push(fluentAtom(lit, binding, problemName(sources)));
        }
        goal.push({ pos, neg });
      },
    );
  }

  // Text.
  const grammarFile = parseGrammarFile(sources.grammar, grammarName);
  const rules = compileRules(grammarFile.rules, grammarName);
  const actionTexts = new Map<string, ActionText>();
  const needed = new Set<string>(['intro']);
  const staticRules = new Map<string, boolean>();
  const symbolsAreStatic = (symbols: readonly GrammarSymbol[], visiting: Set<string>): boolean =>
    symbols.every((symbol) => {
      if (symbol.t === 'text' || symbol.t === 'eval') return true;
      if (symbol.t === 'list') return symbolsAreStatic([symbol.cond], visiting);
      if (symbol.t === 'cond') {
        const queryStatic = (symbol.given ?? []).every(
          (atom) => !fluentPredicates.has(atom.pred.replace(/^not_/, '')),
        );
        return queryStatic && symbolsAreStatic([symbol.inner], visiting);
      }
      if (visiting.has(symbol.name)) return false;
      const known = staticRules.get(symbol.name);
      if (known !== undefined) return known;
      visiting.add(symbol.name);
      const list = rules.get(symbol.name) ?? [];
      const result = list.every(
        (rule) =>
          (rule.condition ?? []).every((atom) => !fluentPredicates.has(atom.pred.replace(/^not_/, ''))) &&
          symbolsAreStatic(rule.rhs, visiting),
      );
      visiting.delete(symbol.name);
      staticRules.set(symbol.name, result);
      return result;
    });
  for (const action of domain.actions) {
    const text = grammarFile.actions.get(action.name.toLowerCase());
    if (text === undefined) {
      throw new ParseError(
        grammarName,
        undefined,
        `the grammar has no "action ${action.name} { template :: ...; feedback :: ...; }" for PDDL action ${action.name}`,
      );
    }
    const template = parseSymbols(text.template, `${grammarName} action ${text.name} template`);
    const feedback = parseSymbols(text.feedback, `${grammarName} action ${text.name} feedback`);
    referencedRules(template, needed);
    referencedRules(feedback, needed);
    actionTexts.set(action.name, {
      paramKeys: action.params.map((p) => `${p.name.slice(1)}:${p.type}`),
      paramNames: action.params.map((p) => p.name.slice(1)),
      template,
      feedback,
      templateIsStatic: symbolsAreStatic(template, new Set()),
    });
  }
  for (const list of rules.values()) for (const rule of list) referencedRules(rule.rhs, needed);
  for (const name of needed) {
    if (!rules.has(name))
      throw new ParseError(
        grammarName,
        undefined,
        `the grammar refers to rule "#${name}#" but never defines it`,
      );
  }

  const atomIndex = new Map<string, number>();
  for (let atom = 0; atom < atomPred.length; atom++)
    atomIndex.set(atomKey(atomPred[atom]!, atomArgs[atom]!), atom);

  // Names of the entities TextWorld knows: every argument of an initial fact.
  const known = new Set<number>();
  for (const atom of initialAtoms) for (const e of atomArgs[atom]!) known.add(e);
  const naming = sources.naming ?? 'alfworld';
  const demangled = naming === 'alfworld' ? alfworldNames([...known].map((e) => entityIds[e]!)) : undefined;
  const entityNames = entityIds.map((id) => demangled?.get(id) ?? id);

  return {
    domainName: domain.name,
    problemName: problem.name,
    entityIds,
    entityTypes,
    entityNames,
    entityIndex,
    subtypes,
    atomPred,
    atomArgs,
    atomIndex,
    fluentPredicates,
    initialAtoms,
    ops,
    branches,
    goal,
    actionTexts,
    rules,
    intro: parseSymbols('#intro#', grammarName),
    grammarText: sources.grammar,
  };
}

function domainName(sources: GameSources) {
  return sources.names?.domain ?? 'domain';
}
function problemName(sources: GameSources) {
  return sources.names?.problem ?? 'problem';
}
