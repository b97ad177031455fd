// PDDL domain and problem parser (the ADL subset TextWorld games use: typing, and/or/not,
// exists/forall, when, equality; numeric fluents such as total-cost are read and ignored). Every
// predicate a condition or an effect names must be declared by the domain.
import { ParseError } from '@pilotrl/core';
import { MAX_OBJECTS } from './limits';
import { isList, readSExpr, type SExpr, type SList } from './sexpr';

export interface TypedName {
  readonly name: string;
  readonly type: string;
}

export type Formula =
  | { readonly kind: 'true' }
  | { readonly kind: 'atom'; readonly pred: string; readonly args: readonly string[] }
  | { readonly kind: 'not'; readonly arg: Formula }
  | { readonly kind: 'and' | 'or'; readonly parts: readonly Formula[] }
  | { readonly kind: 'exists' | 'forall'; readonly vars: readonly TypedName[]; readonly body: Formula };

/** One effect literal, under optional `forall` variables and a `when` condition. */
export interface EffectLiteral {
  readonly vars: readonly TypedName[];
  readonly condition: Formula | undefined;
  readonly pred: string;
  readonly args: readonly string[];
  readonly negated: boolean;
}

export interface ActionSchema {
  readonly name: string;
  readonly params: readonly TypedName[];
  readonly precondition: Formula;
  readonly effects: readonly EffectLiteral[];
  readonly line: number;
}

export interface Domain {
  readonly name: string;
  /** Type → parent type; the root `object` has no entry. */
  readonly typeParents: ReadonlyMap<string, string>;
  readonly constants: readonly TypedName[];
  readonly predicates: ReadonlySet<string>;
  readonly actions: readonly ActionSchema[];
}

export interface Problem {
  readonly name: string;
  readonly domain: string;
  readonly objects: readonly TypedName[];
  /** True atoms of the initial state as `[predicate, ...args]`, in file order, without duplicates. */
  readonly init: readonly (readonly string[])[];
  readonly goal: Formula;
}

const head = (list: SList): string | undefined =>
  typeof list.items[0] === 'string' ? list.items[0] : undefined;

function expectList(expr: SExpr | undefined, source: string, line: number, what: string): SList {
  if (!isList(expr)) throw new ParseError(source, line, `expected ${what} as a list`);
  return expr;
}

function expectSymbol(expr: SExpr | undefined, source: string, line: number, what: string): string {
  if (typeof expr !== 'string') throw new ParseError(source, line, `expected ${what} as a name`);
  return expr;
}

/** Reads `a b - t c - u d` as typed names; names without a type get `object`. */
export function parseTypedList(items: readonly SExpr[], source: string, line: number): TypedName[] {
  const result: TypedName[] = [];
  let pending: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = expectSymbol(items[i], source, line, 'a typed name');
    if (item === '-') {
      const type = items[i + 1];
      if (typeof type !== 'string') {
        throw new ParseError(
          source,
          line,
          '"-" must be followed by a type name (either types are unsupported)',
        );
      }
      for (const name of pending) result.push({ name, type });
      pending = [];
      i++;
    } else pending.push(item);
  }
  for (const name of pending) result.push({ name, type: 'object' });
  return result;
}

/** Where formulas and effects are read, and the predicates they may name. */
interface ReadContext {
  readonly source: string;
  /** What is being read, for errors: `the goal`, `action pickupobject`. */
  readonly owner: string;
  readonly domain: Pick<Domain, 'name' | 'predicates'>;
}

function checkPredicate(pred: string, context: ReadContext, line: number): void {
  if (pred === '=' || context.domain.predicates.has(pred)) return;
  throw new ParseError(
    context.source,
    line,
    `${context.owner} names predicate "${pred}", which domain "${context.domain.name}" does not declare in (:predicates ...)`,
  );
}

function parseFormula(expr: SExpr, context: ReadContext, line: number): Formula {
  const { source } = context;
  const list = expectList(expr, source, line, 'a condition');
  const at = list.line;
  const tag = head(list);
  if (tag === undefined) {
    if (list.items.length === 0) return { kind: 'true' };
    throw new ParseError(source, at, 'a condition must start with a name');
  }
  switch (tag) {
    case 'and':
    case 'or':
      return { kind: tag, parts: list.items.slice(1).map((part) => parseFormula(part, context, at)) };
    case 'not': {
      if (list.items.length !== 2) throw new ParseError(source, at, '(not ...) takes exactly one condition');
      return { kind: 'not', arg: parseFormula(list.items[1]!, context, at) };
    }
    case 'imply': {
      if (list.items.length !== 3) throw new ParseError(source, at, '(imply A B) takes two conditions');
      const a = parseFormula(list.items[1]!, context, at);
      const b = parseFormula(list.items[2]!, context, at);
      return { kind: 'or', parts: [{ kind: 'not', arg: a }, b] };
    }
    case 'exists':
    case 'forall': {
      const vars = parseTypedList(
        expectList(list.items[1], source, at, 'quantified variables').items,
        source,
        at,
      );
      if (list.items.length !== 3) throw new ParseError(source, at, `(${tag} (vars) body) takes one body`);
      return { kind: tag, vars, body: parseFormula(list.items[2]!, context, at) };
    }
    default: {
      checkPredicate(tag, context, at);
      const args = list.items.slice(1).map((arg) => expectSymbol(arg, source, at, `an argument of ${tag}`));
      return { kind: 'atom', pred: tag, args };
    }
  }
}

const numericEffects = new Set(['increase', 'decrease', 'assign', 'scale-up', 'scale-down']);

function parseEffect(
  expr: SExpr,
  context: ReadContext,
  line: number,
  vars: readonly TypedName[],
  condition: Formula | undefined,
  out: EffectLiteral[],
): void {
  const { source } = context;
  const list = expectList(expr, source, line, 'an effect');
  const at = list.line;
  const tag = head(list);
  if (tag === undefined) {
    if (list.items.length === 0) return;
    throw new ParseError(source, at, 'an effect must start with a name');
  }
  if (tag === 'and') {
    for (const part of list.items.slice(1)) parseEffect(part, context, at, vars, condition, out);
  } else if (tag === 'when') {
    if (condition !== undefined)
      throw new ParseError(source, at, 'nested (when ...) effects are unsupported');
    parseEffect(list.items[2]!, context, at, vars, parseFormula(list.items[1]!, context, at), out);
  } else if (tag === 'forall') {
    const more = parseTypedList(expectList(list.items[1], source, at, 'forall variables').items, source, at);
    parseEffect(list.items[2]!, context, at, [...vars, ...more], condition, out);
  } else if (numericEffects.has(tag)) {
    return;
  } else if (tag === 'not') {
    const atom = expectList(list.items[1], source, at, 'a negated atom');
    const pred = expectSymbol(atom.items[0], source, at, 'a predicate');
    checkPredicate(pred, context, atom.line);
    const args = atom.items.slice(1).map((arg) => expectSymbol(arg, source, at, 'an argument'));
    out.push({ vars, condition, pred, args, negated: true });
  } else {
    checkPredicate(tag, context, at);
    const args = list.items.slice(1).map((arg) => expectSymbol(arg, source, at, 'an argument'));
    out.push({ vars, condition, pred: tag, args, negated: false });
  }
}

function parseAction(list: SList, source: string, domain: Pick<Domain, 'name' | 'predicates'>): ActionSchema {
  const name = expectSymbol(list.items[1], source, list.line, 'the action name');
  const context: ReadContext = { source, owner: `action ${name}`, domain };
  let params: TypedName[] = [];
  let precondition: Formula = { kind: 'true' };
  const effects: EffectLiteral[] = [];
  for (let i = 2; i < list.items.length; i += 2) {
    const key = list.items[i];
    const value = list.items[i + 1];
    if (value === undefined)
      throw new ParseError(source, list.line, `action ${name}: ${String(key)} has no value`);
    if (key === ':parameters') {
      params = parseTypedList(expectList(value, source, list.line, 'parameters').items, source, list.line);
    } else if (key === ':precondition') precondition = parseFormula(value, context, list.line);
    else if (key === ':effect') parseEffect(value, context, list.line, [], undefined, effects);
    else throw new ParseError(source, list.line, `action ${name}: unknown key ${String(key)}`);
  }
  return { name, params, precondition, effects, line: list.line };
}

export function parseDomain(text: string, source: string): Domain {
  const root = readSExpr(text, source);
  if (head(root) !== 'define')
    throw new ParseError(source, root.line, 'a domain must start with (define ...)');
  const nameList = expectList(root.items[1], source, root.line, '(domain NAME)');
  if (head(nameList) !== 'domain') {
    throw new ParseError(source, nameList.line, 'expected (domain NAME): is this a problem file?');
  }
  const typeParents = new Map<string, string>();
  let constants: TypedName[] = [];
  const predicates = new Set<string>();
  const actionLists: SList[] = [];
  for (const section of root.items.slice(2)) {
    const list = expectList(section, source, root.line, 'a domain section');
    const tag = head(list);
    if (tag === ':requirements' || tag === ':functions') continue;
    if (tag === ':types') {
      for (const { name, type } of parseTypedList(list.items.slice(1), source, list.line)) {
        if (name !== 'object') typeParents.set(name, type);
      }
    } else if (tag === ':constants') {
      constants = parseTypedList(list.items.slice(1), source, list.line);
      checkObjectCount(constants.length, 'constants', source, list.line);
    } else if (tag === ':predicates') {
      for (const pred of list.items.slice(1))
        predicates.add(
          expectSymbol(
            expectList(pred, source, list.line, 'a predicate').items[0],
            source,
            list.line,
            'a predicate name',
          ),
        );
    } else if (tag === ':action') actionLists.push(list);
    else throw new ParseError(source, list.line, `unsupported domain section ${String(tag)}`);
  }
  const name = String(nameList.items[1]);
  // Actions are read once every section is, so that (:predicates ...) may come after them.
  const actions = actionLists.map((list) => parseAction(list, source, { name, predicates }));
  return { name, typeParents, constants, predicates, actions };
}

/** Reads a problem; its goal may name only the predicates `domain` declares. */
export function parseProblem(
  text: string,
  source: string,
  domain: Pick<Domain, 'name' | 'predicates'>,
): Problem {
  const root = readSExpr(text, source);
  if (head(root) !== 'define')
    throw new ParseError(source, root.line, 'a problem must start with (define ...)');
  const nameList = expectList(root.items[1], source, root.line, '(problem NAME)');
  if (head(nameList) !== 'problem') {
    throw new ParseError(source, nameList.line, 'expected (problem NAME): is this a domain file?');
  }
  let domainName = '';
  let objects: TypedName[] = [];
  const init: string[][] = [];
  const seen = new Set<string>();
  let goal: Formula | undefined;
  for (const section of root.items.slice(2)) {
    const list = expectList(section, source, root.line, 'a problem section');
    const tag = head(list);
    if (tag === ':domain') domainName = expectSymbol(list.items[1], source, list.line, 'the domain name');
    else if (tag === ':requirements' || tag === ':metric') continue;
    else if (tag === ':objects') {
      objects = parseTypedList(list.items.slice(1), source, list.line);
      checkObjectCount(objects.length, 'objects', source, list.line);
    } else if (tag === ':init') {
      for (const fact of list.items.slice(1)) {
        const atom = expectList(fact, source, list.line, 'an initial fact');
        const pred = expectSymbol(atom.items[0], source, atom.line, 'a predicate');
        if (pred === '=' || pred === 'not') continue;
        const parts = [
          pred,
          ...atom.items.slice(1).map((arg) => expectSymbol(arg, source, atom.line, 'an object')),
        ];
        const key = parts.join(' ');
        if (!seen.has(key)) {
          seen.add(key);
          init.push(parts);
        }
      }
    } else if (tag === ':goal')
      goal = parseFormula(list.items[1]!, { source, owner: 'the goal', domain }, list.line);
    else throw new ParseError(source, list.line, `unsupported problem section ${String(tag)}`);
  }
  if (goal === undefined) throw new ParseError(source, root.line, 'the problem has no (:goal ...)');
  const names = new Set<string>();
  for (const object of objects) {
    if (names.has(object.name)) throw new ParseError(source, undefined, `duplicate object ${object.name}`);
    names.add(object.name);
  }
  return { name: String(nameList.items[1]), domain: domainName, objects, init, goal };
}

function checkObjectCount(count: number, what: 'objects' | 'constants', source: string, line: number): void {
  if (count > MAX_OBJECTS) {
    throw new ParseError(
      source,
      line,
      `declares ${count} ${what}; the limit is ${MAX_OBJECTS} (MAX_OBJECTS)`,
    );
  }
}
