// TextWorld's context-sensitive text grammar: parses rule right-hand sides (`#rule#`,
// `{expr | query}`, `[{...}]` lists, literal text) and derives text from them against a fact view,
// with TextWorld's rule choice (first rule whose condition holds) and list rendering.
import { EnvError, ParseError } from '@pilotrl/core';
import { MAX_DERIVED_CHARS, MAX_NESTING, MAX_RULE_DEPTH } from './limits';
import type { GrammarRuleText } from './twl2';

/** A query conjunct such as `inreceptacle(o:object, r:receptacle)` (`!p` reads as `not_p`). */
export interface QueryAtom {
  readonly pred: string;
  readonly params: readonly { readonly name: string; readonly type: string }[];
}
export type Query = readonly QueryAtom[];

export type Expr =
  | { readonly t: 'var'; readonly name: string }
  | { readonly t: 'str'; readonly value: string }
  | { readonly t: 'attr'; readonly target: Expr; readonly attr: string }
  | { readonly t: 'add' | 'or' | 'and'; readonly left: Expr; readonly right: Expr };

export type GrammarSymbol =
  | { readonly t: 'text'; readonly value: string }
  | { readonly t: 'rule'; readonly name: string }
  | { readonly t: 'cond'; readonly inner: GrammarSymbol; readonly given: Query | undefined }
  | { readonly t: 'eval'; readonly expr: Expr }
  | { readonly t: 'list'; readonly cond: GrammarSymbol };

/** Attributes an entity has in TextWorld (`EntityInfo`); the ones we do not model read as None. */
const entityAttributes = new Set([
  'id',
  'type',
  'name',
  'noun',
  'adj',
  'desc',
  'room_type',
  'definite',
  'indefinite',
  'synonyms',
]);

export function parseQuery(text: string, where: string): Query {
  return text.split('&').map((part) => {
    const match = /^\s*(!?[\w/]+)\s*\(([^)]*)\)\s*$/.exec(part);
    if (match === null) throw new ParseError(where, undefined, `cannot read query "${text.trim()}"`);
    const name = match[1]!;
    const params =
      match[2]!.trim() === ''
        ? []
        : match[2]!.split(',').map((raw) => {
            const [phName, phType] = raw.split(':').map((s) => s.trim());
            if (phName === undefined || !/^[\w']+$/.test(phName)) {
              throw new ParseError(where, undefined, `bad placeholder "${raw.trim()}" in "${text.trim()}"`);
            }
            return { name: phName, type: phType ?? phName.replace(/'+$/, '') };
          });
    return { pred: name.startsWith('!') ? `not_${name.slice(1)}` : name, params };
  });
}

function parseExpr(text: string, where: string): Expr {
  const tokens = text.match(/'[^']*'|"[^"]*"|[A-Za-z_]\w*|\+|\.|\(|\)|\S/g) ?? [];
  let i = 0;
  const fail = (problem: string): never => {
    throw new ParseError(where, undefined, `unsupported expression {${text}}: ${problem}`);
  };
  let depth = 0;
  const primary = (): Expr => {
    const token = tokens[i++];
    if (token === undefined) return fail('it ends too early');
    if (token === '(') {
      if (++depth > MAX_NESTING) fail(`parentheses nest deeper than ${MAX_NESTING} (MAX_NESTING)`);
      const inner = orExpr();
      if (tokens[i++] !== ')') fail('missing ")"');
      depth--;
      return inner;
    }
    if (token.startsWith("'") || token.startsWith('"')) return { t: 'str', value: token.slice(1, -1) };
    if (/^[A-Za-z_]\w*$/.test(token) && token !== 'or' && token !== 'and') return { t: 'var', name: token };
    return fail(`unexpected "${token}"`);
  };
  const postfix = (): Expr => {
    let node = primary();
    while (tokens[i] === '.') {
      const attr = tokens[i + 1];
      if (attr === undefined || !entityAttributes.has(attr)) fail(`unknown attribute "${attr}"`);
      node = { t: 'attr', target: node, attr: attr! };
      i += 2;
    }
    return node;
  };
  const binary = (op: 'add' | 'and' | 'or', token: string, next: () => Expr) => (): Expr => {
    let node = next();
    while (tokens[i] === token) {
      i++;
      node = { t: op, left: node, right: next() };
    }
    return node;
  };
  const addExpr = binary('add', '+', postfix);
  const andExpr = binary('and', 'and', addExpr);
  const orExpr = binary('or', 'or', andExpr);
  const expr = orExpr();
  if (i !== tokens.length) fail(`unexpected "${tokens[i]}"`);
  return expr;
}

const literalRe = /[^;|"<>[\]#{}]*/y;
const tagRe = /[\w()/!<>\-\s,.]+/y;
const statementRe = /[^|[\]{}\n<>]+/y;
const givenRe = /[^;|{}\n[\]#]+/y;
const pipeRe = /\s*\|\s*/y;

/** Parses one right-hand side the way TextWorld's grammar parser does (trailing unreadable text is dropped). */
export function parseSymbols(text: string, where: string): GrammarSymbol[] {
  let pos = 0;
  const leading = /^(\/\/.*|\s*)\n?/.exec(text);
  if (leading !== null) pos = leading[0].length;
  const skipTabs = () => {
    while (text[pos] === '\t') pos++;
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m === null) return undefined;
    pos += m[0].length;
    return m[0];
  };
  const nonterminal = (): GrammarSymbol | undefined => {
    const start = pos;
    skipTabs();
    if (text[pos] !== '#') {
      pos = start;
      return undefined;
    }
    pos++;
    const tag = match(tagRe);
    if (tag === undefined || text[pos] !== '#') {
      pos = start;
      return undefined;
    }
    pos++;
    return { t: 'rule', name: tag };
  };
  const conditional = (): GrammarSymbol | undefined => {
    const start = pos;
    skipTabs();
    if (text[pos] !== '{') return undefined;
    pos++;
    let inner = nonterminal();
    if (inner === undefined) {
      skipTabs();
      const statement = match(statementRe);
      if (statement === undefined) {
        pos = start;
        return undefined;
      }
      inner = { t: 'eval', expr: parseExpr(statement.trim(), where) };
    }
    let given: Query | undefined;
    if (match(pipeRe) !== undefined) {
      const query = match(givenRe);
      if (query === undefined) throw new ParseError(where, undefined, `empty query after "|" in "${text}"`);
      given = parseQuery(query, where);
    }
    skipTabs();
    if (text[pos] !== '}') {
      pos = start;
      return undefined;
    }
    pos++;
    return { t: 'cond', inner, given };
  };
  const symbols: GrammarSymbol[] = [];
  while (pos < text.length) {
    const before = pos;
    skipTabs();
    let symbol: GrammarSymbol | undefined;
    if (text[pos] === '[') {
      pos++;
      const cond = conditional();
      skipTabs();
      if (cond !== undefined && text[pos] === ']') {
        pos++;
        symbol = { t: 'list', cond };
      } else pos = before;
    }
    symbol ??= conditional() ?? nonterminal();
    if (symbol === undefined) {
      skipTabs();
      if (text[pos] === '"') {
        const start = pos;
        pos++;
        const value = match(literalRe) ?? '';
        if (text[pos] === '"') {
          pos++;
          symbol = { t: 'text', value };
        } else pos = start;
      }
    }
    if (symbol === undefined) {
      const value = match(literalRe) ?? '';
      if (value === '') break;
      symbol = { t: 'text', value };
    }
    symbols.push(symbol);
    if (pos === before) break;
  }
  return symbols;
}

export interface CompiledRule {
  readonly condition: Query | undefined;
  readonly rhs: readonly GrammarSymbol[];
}

export type RuleBook = ReadonlyMap<string, readonly CompiledRule[]>;

export function compileRules(
  rules: Readonly<Record<string, readonly GrammarRuleText[]>>,
  where: string,
): RuleBook {
  const book = new Map<string, CompiledRule[]>();
  for (const [name, list] of Object.entries(rules)) {
    book.set(
      name,
      list.map((rule) => ({
        condition:
          rule.condition.trim() === '' ? undefined : parseQuery(rule.condition, `${where} rule "${name}"`),
        rhs: parseSymbols(rule.rhs, `${where} rule "${name}"`),
      })),
    );
  }
  return book;
}

/** Names of rules a symbol list refers to, including list separators, for load-time checks. */
export function referencedRules(symbols: readonly GrammarSymbol[], out: Set<string>): void {
  for (const symbol of symbols) {
    if (symbol.t === 'rule') out.add(symbol.name);
    else if (symbol.t === 'cond') referencedRules([symbol.inner], out);
    else if (symbol.t === 'list') {
      out.add('list_empty');
      out.add('list_separator');
      out.add('list_last_separator');
      referencedRules([symbol.cond], out);
    }
  }
}

/** Bindings of a derivation: placeholder key (`name:type`) → entity, and variable name → entity. */
export interface Bindings {
  readonly mapping: ReadonlyMap<string, number>;
  readonly vars: ReadonlyMap<string, number>;
}

/** What derivation needs from the game: conjunctive queries over facts, and entity attributes. */
export interface FactView {
  /** Every extension of `mapping` satisfying `query`, in TextWorld's order (or just the first). */
  assignments(query: Query, mapping: ReadonlyMap<string, number>, firstOnly: boolean): Map<string, number>[];
  attribute(entity: number, attr: string): string | null;
}

type Value = string | { entity: number } | null;

const truthy = (value: Value) => value !== null && value !== '';

export class Deriver {
  /** Rules being expanded, outermost first, and characters written by the derivation under way. */
  private readonly expanding: string[] = [];
  private written = 0;

  constructor(
    private readonly rules: RuleBook,
    private readonly where: string,
  ) {}

  derive(symbols: readonly GrammarSymbol[], bindings: Bindings, facts: FactView): string {
    const out: string[] = [];
    this.expanding.length = 0;
    this.written = 0;
    for (const symbol of symbols) this.symbol(symbol, bindings, facts, out);
    return out.join('');
  }

  private write(text: string, out: string[]): void {
    this.written += text.length;
    if (this.written > MAX_DERIVED_CHARS) {
      throw new EnvError(
        `${this.where}: the grammar's text grows past ${MAX_DERIVED_CHARS} characters (MAX_DERIVED_CHARS) in rule "${this.expanding.at(-1) ?? '(top)'}"`,
      );
    }
    out.push(text);
  }

  private symbol(symbol: GrammarSymbol, bindings: Bindings, facts: FactView, out: string[]): void {
    switch (symbol.t) {
      case 'text':
        this.write(symbol.value, out);
        return;
      case 'rule':
        this.rule(symbol.name, bindings, facts, out);
        return;
      case 'eval':
        this.write(this.stringify(this.evaluate(symbol.expr, bindings, facts), facts), out);
        return;
      case 'cond':
        for (const context of this.contexts(symbol, bindings, facts))
          this.symbol(symbol.inner, context, facts, out);
        return;
      case 'list': {
        const cond = symbol.cond as Extract<GrammarSymbol, { t: 'cond' }>;
        const items = this.contexts(cond, bindings, facts);
        if (items.length === 0) {
          this.rule('list_empty', bindings, facts, out);
          return;
        }
        items.forEach((context, index) => {
          if (index > 0) {
            this.rule(
              index === items.length - 1 ? 'list_last_separator' : 'list_separator',
              bindings,
              facts,
              out,
            );
          }
          this.symbol(cond.inner, context, facts, out);
        });
        return;
      }
    }
  }

  private contexts(symbol: GrammarSymbol, bindings: Bindings, facts: FactView): Bindings[] {
    if (symbol.t !== 'cond' || symbol.given === undefined) return [bindings];
    const query = symbol.given;
    return facts.assignments(query, bindings.mapping, false).map((mapping) => {
      const vars = new Map(bindings.vars);
      for (const atom of query) {
        for (const param of atom.params) {
          const entity = mapping.get(`${param.name}:${param.type}`);
          if (entity !== undefined) vars.set(param.name, entity);
        }
      }
      return { mapping, vars };
    });
  }

  private rule(name: string, bindings: Bindings, facts: FactView, out: string[]): void {
    const rules = this.rules.get(name);
    if (rules === undefined) throw new EnvError(`${this.where}: grammar has no rule "${name}"`);
    if (this.expanding.length >= MAX_RULE_DEPTH) {
      const loop = this.expanding.indexOf(name);
      throw new EnvError(
        `${this.where}: grammar rules nest deeper than ${MAX_RULE_DEPTH} (MAX_RULE_DEPTH) expanding "${name}"${loop < 0 ? '' : `, which expands to itself through ${this.expanding.slice(loop, loop + 4).join(' → ')}`}`,
      );
    }
    for (const rule of rules) {
      if (
        rule.condition === undefined ||
        facts.assignments(rule.condition, bindings.mapping, true).length > 0
      ) {
        this.expanding.push(name);
        for (const symbol of rule.rhs) this.symbol(symbol, bindings, facts, out);
        this.expanding.pop();
        return;
      }
    }
    throw new EnvError(`${this.where}: no alternative of grammar rule "${name}" applies in this state`);
  }

  private evaluate(expr: Expr, bindings: Bindings, facts: FactView): Value {
    switch (expr.t) {
      case 'str':
        return expr.value;
      case 'var': {
        const entity = bindings.vars.get(expr.name);
        if (entity === undefined)
          throw new EnvError(`${this.where}: variable "${expr.name}" is not bound here`);
        return { entity };
      }
      case 'attr': {
        const target = this.evaluate(expr.target, bindings, facts);
        if (target === null || typeof target === 'string') {
          throw new EnvError(`${this.where}: ".${expr.attr}" applied to a non-entity`);
        }
        return facts.attribute(target.entity, expr.attr);
      }
      case 'or': {
        const left = this.evaluate(expr.left, bindings, facts);
        return truthy(left) ? left : this.evaluate(expr.right, bindings, facts);
      }
      case 'and': {
        const left = this.evaluate(expr.left, bindings, facts);
        return truthy(left) ? this.evaluate(expr.right, bindings, facts) : left;
      }
      case 'add': {
        const left = this.evaluate(expr.left, bindings, facts);
        const right = this.evaluate(expr.right, bindings, facts);
        if (typeof left !== 'string' || typeof right !== 'string') {
          throw new EnvError(`${this.where}: "+" needs two strings`);
        }
        return left + right;
      }
    }
  }

  private stringify(value: Value, facts: FactView): string {
    if (value === null) return 'None';
    if (typeof value === 'string') return value;
    return facts.attribute(value.entity, 'name') ?? 'None';
  }
}
