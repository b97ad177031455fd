// S-expression reader for PDDL text: `;` comments, lower-cased symbols (as Fast Downward reads
// them), and the line of every list so that errors can point at it. Text over the size limit or
// nested deeper than the nesting limit is refused before any list is built, since the recursive
// passes over formulas that follow would exhaust the stack.
import { ParseError, printable } from '@pilotrl/core';
import { checkTextSize, MAX_NESTING } from './limits';

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
  checkTextSize(text, source);
  const lines = text.split('\n').map((line) => line.split(';', 1)[0]!);
  checkNesting(lines, source);
  const stack: { items: SExpr[]; line: number }[] = [];
  let result: SList | undefined;
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex]!;
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
        if (/[^\x20-\x7e]/.test(token))
          throw new ParseError(source, lineNo, `non-ASCII symbol "${printable(token, 60)}"`);
        const top = stack[stack.length - 1];
        if (top === undefined)
          throw new ParseError(source, lineNo, `symbol "${printable(token, 60)}" outside any list`);
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

/** Refuses lists nested deeper than `MAX_NESTING`, naming the line where the limit is passed. */
function checkNesting(lines: readonly string[], source: string): void {
  let depth = 0;
  let deepest = 0;
  let firstOver: number | undefined;
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex]!;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (ch === '(') {
        depth++;
        if (depth > deepest) deepest = depth;
        if (depth > MAX_NESTING) firstOver ??= lineIndex + 1;
      } else if (ch === ')' && depth > 0) depth--;
    }
  }
  if (firstOver !== undefined) {
    throw new ParseError(
      source,
      firstOver,
      `lists nest ${deepest} deep; the limit is ${MAX_NESTING} (MAX_NESTING)`,
    );
  }
}
