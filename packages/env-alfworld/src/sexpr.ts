// S-expression reader for PDDL text: `;` comments, lower-cased symbols (as Fast Downward reads
// them), and the line of every list so that errors can point at it.
import { ParseError } from '@pilotrl/core';

export type SExpr = string | SList;
export interface SList {
  readonly items: SExpr[];
  readonly line: number;
}

export function isList(expr: SExpr | undefined): expr is SList {
  return typeof expr === 'object';
}

/** Parses the whole text into one top-level expression; `source` names the file in errors. */
export function readSExpr(text: string, source: string): SList {
  const stack: { items: SExpr[]; line: number }[] = [];
  let result: SList | undefined;
  const lines = text.split('\n');
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex]!.split(';', 1)[0]!;
    const lineNo = lineIndex + 1;
    const tokens = line.replace(/\(/g, ' ( ').replace(/\)/g, ' ) ').replace(/\?/g, ' ?').split(/\s+/);
    for (const token of tokens) {
      if (token === '') continue;
      if (token === '(') {
        stack.push({ items: [], line: lineNo });
      } else if (token === ')') {
        const done = stack.pop();
        if (done === undefined) throw new ParseError(source, lineNo, 'unbalanced ")": no list to close');
        if (stack.length === 0) {
          if (result !== undefined)
            throw new ParseError(source, lineNo, 'text after the end of the definition');
          result = done;
        } else stack[stack.length - 1]!.items.push(done);
      } else {
        if (/[^\x20-\x7e]/.test(token)) throw new ParseError(source, lineNo, `non-ASCII symbol "${token}"`);
        const top = stack[stack.length - 1];
        if (top === undefined) throw new ParseError(source, lineNo, `symbol "${token}" outside any list`);
        top.items.push(token.toLowerCase());
      }
    }
  }
  if (stack.length > 0) {
    throw new ParseError(source, stack[stack.length - 1]!.line, 'list opened here is never closed');
  }
  if (result === undefined) throw new ParseError(source, undefined, 'no PDDL definition found (empty file?)');
  return result;
}
