// The text side of a compiled game: the twl2 grammar's rules, and each PDDL action's template and
// feedback, with whether its template reads only static facts (so its command can be cached).
import { ParseError } from '@pilotrl/core';
import type { ActionText } from './game';
import type { Domain } from './pddl';
import {
  type CompiledRule,
  compileRules,
  type GrammarSymbol,
  parseSymbols,
  referencedRules,
} from './text-grammar';
import { parseGrammarFile } from './twl2';

export interface GameText {
  readonly rules: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly actionTexts: ReadonlyMap<string, ActionText>;
}

/**
 * Parses `grammar` (named `grammarName` in errors) against the domain's actions. A PDDL action
 * without a text, or a rule referred to but never defined, is a ParseError.
 */
export function compileGameText(
  domain: Domain,
  grammar: string,
  grammarName: string,
  fluentPredicates: ReadonlySet<string>,
): GameText {
  const grammarFile = parseGrammarFile(grammar, grammarName);
  const rules = compileRules(grammarFile.rules, grammarName);
  const actionTexts = new Map<string, ActionText>();
  const needed = new Set<string>(['intro']);
  const symbolsAreStatic = staticSymbolCheck(rules, fluentPredicates);
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
  return { rules, actionTexts };
}

/**
 * Whether symbols read only facts that never change: no query of a fluent predicate in them or in
 * any rule they expand to (a recursive rule counts as not static). Answers per rule are cached.
 */
export function staticSymbolCheck(
  rules: ReadonlyMap<string, readonly CompiledRule[]>,
  fluentPredicates: ReadonlySet<string>,
): (symbols: readonly GrammarSymbol[], visiting: Set<string>) => boolean {
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
  return symbolsAreStatic;
}
