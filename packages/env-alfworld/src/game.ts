// Compiles a TextWorld PDDL game (domain + problem + twl2 grammar) into a ground, indexed form:
// interned atoms, ground operators with fluent preconditions and effects, a ground goal, entity
// names, and parsed text rules. One compiled game serves any number of episodes.
import { ParseError } from '@pilotrl/core';
import { compileGameText } from './game-text';
import {
  atomKey,
  compileInitialFacts,
  createAtomTable,
  createGrounder,
  type Entities,
  type Grounder,
} from './grounding';
import { alfworldNames, type Naming } from './names';
import { type Branch, toBranches } from './normalize';
import { type Domain, type Problem, parseDomain, parseProblem } from './pddl';
import { type CompiledRule, type GrammarSymbol, parseSymbols } from './text-grammar';

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
  const entities = compileEntities(domain, problem);
  const { entityIds, entityTypes, entityIndex, subtypes } = entities;
  const { goalBranches, normalForms } = normalizeConditions(domain, problem, entities, sources);

  // Facts: static predicates never appear in an effect.
  const fluentPredicates = new Set<string>();
  for (const action of domain.actions) for (const effect of action.effects) fluentPredicates.add(effect.pred);
  const atoms = createAtomTable(entityIds.length);
  const { atomPred, atomArgs } = atoms;
  const facts = compileInitialFacts(problem.init, entityIndex, fluentPredicates, atoms, problemName(sources));
  const grounder = createGrounder({ entities, fluentPredicates, facts, atoms });
  const { ops, branches } = groundActions(domain, normalForms, grounder, fluentPredicates, sources);
  const goal = groundGoal(goalBranches, grounder, fluentPredicates, problemName(sources));
  const { rules, actionTexts } = compileGameText(domain, sources.grammar, grammarName, fluentPredicates);

  const atomIndex = new Map<string, number>();
  for (let atom = 0; atom < atomPred.length; atom++)
    atomIndex.set(atomKey(atomPred[atom]!, atomArgs[atom]!), atom);

  // Names of the entities TextWorld knows: every argument of an initial fact.
  const known = new Set<number>();
  for (const atom of facts.initialAtoms) for (const e of atomArgs[atom]!) known.add(e);
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
    initialAtoms: facts.initialAtoms,
    ops,
    branches,
    goal,
    actionTexts,
    rules,
    intro: parseSymbols('#intro#', grammarName),
    grammarText: sources.grammar,
  };
}

/** The type hierarchy and the objects (the domain's constants, then the problem's), each once. */
export function compileEntities(domain: Domain, problem: Problem): Entities {
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
  return { entityIds, entityTypes, entityIndex, subtypes, objectsOfType };
}

interface ActionNormalForms {
  readonly actionBranches: Branch[];
  readonly effectConditions: (Branch[] | undefined)[];
}

/** Normal forms of every condition, each refused over the size limits before any grounding. */
function normalizeConditions(domain: Domain, problem: Problem, entities: Entities, sources: GameSources) {
  const objectNamesOfType = (type: string) => entities.objectsOfType(type).map((e) => entities.entityIds[e]!);
  const goalBranches = toBranches(problem.goal, objectNamesOfType, {
    source: problemName(sources),
    line: undefined,
    what: 'the goal',
  });
  const normalForms: ActionNormalForms[] = domain.actions.map((action) => {
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
  return { goalBranches, normalForms };
}

/** The ground operators of the domain's actions, and one branch per (operator, precondition branch). */
function groundActions(
  domain: Domain,
  normalForms: readonly ActionNormalForms[],
  grounder: Grounder,
  fluentPredicates: ReadonlySet<string>,
  sources: GameSources,
): { ops: GroundOp[]; branches: GroundBranch[] } {
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
      grounder.ground([...action.params, ...branch.vars], branch.literals, where, (binding) => {
        const pre = new Map<number, boolean>();
        const pos: number[] = [];
        const neg: number[] = [];
        for (const lit of branch.literals) {
          if (lit.pred === '=' || !fluentPredicates.has(lit.pred)) continue;
          const atom = grounder.fluentAtom(lit, binding, domainName(sources));
          if (pre.get(atom) === !lit.negated) continue;
          pre.set(atom, !lit.negated);
          (lit.negated ? neg : pos).push(atom);
        }
        const effects = grounder.groundEffects(action.effects, effectConditions, binding, pre, where);
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
  return { ops, branches };
}

/** The goal's branches, ground: per binding the fluent atoms that must hold and must not. */
function groundGoal(
  goalBranches: readonly Branch[],
  grounder: Grounder,
  fluentPredicates: ReadonlySet<string>,
  source: string,
): { pos: number[]; neg: number[] }[] {
  const goal: { pos: number[]; neg: number[] }[] = [];
  for (const branch of goalBranches) {
    grounder.ground(
      branch.vars,
      branch.literals,
      { source, line: undefined, what: 'the goal' },
      (binding) => {
        const pos: number[] = [];
        const neg: number[] = [];
        for (const lit of branch.literals) {
          if (lit.pred === '=' || !fluentPredicates.has(lit.pred)) continue;
          (lit.negated ? neg : pos).push(grounder.fluentAtom(lit, binding, source));
        }
        goal.push({ pos, neg });
      },
    );
  }
  return goal;
}

function domainName(sources: GameSources) {
  return sources.names?.domain ?? 'domain';
}
function problemName(sources: GameSources) {
  return sources.names?.problem ?? 'problem';
}
