// Reader of TextWorld's `twl2` game grammar files: `grammar :: """{json}""";` blocks and
// `action Name { template :: "..."; feedback :: "..."; grammar :: """{json}"""; }` entries.
// Later JSON blocks replace earlier rules of the same name, as TextWorld merges them.
import { ParseError } from '@pilotrl/core';
import { checkTextSize } from './limits';

export interface GrammarRuleText {
  readonly condition: string;
  readonly rhs: string;
}

export interface ActionText {
  /** Action name as written (matched case-insensitively against PDDL actions). */
  readonly name: string;
  readonly template: string;
  readonly feedback: string;
}

export interface GrammarFile {
  /** Keyed by lower-cased action name. */
  readonly actions: ReadonlyMap<string, ActionText>;
  readonly rules: Readonly<Record<string, readonly GrammarRuleText[]>>;
}

const ruleListError = (name: string) =>
  `grammar rule "${name}" must be a list of {"rhs": ..., "condition"?: ...}`;

function dedent(text: string): string {
  const lines = text.split('\n');
  let indent: string | undefined;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const lead = /^[ \t]*/.exec(line)![0];
    if (indent === undefined) indent = lead;
    else {
      let i = 0;
      while (i < indent.length && i < lead.length && indent[i] === lead[i]) i++;
      indent = indent.slice(0, i);
    }
  }
  const cut = indent?.length ?? 0;
  return lines
    .map((line) => (line.trim() === '' ? line.replace(/^[ \t]+$/, '') : line.slice(cut)))
    .join('\n');
}

export function parseGrammarFile(text: string, source: string): GrammarFile {
  checkTextSize(text, source);
  const actions = new Map<string, ActionText>();
  const merged: Record<string, GrammarRuleText[]> = {};
  let pos = 0;
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  const fail = (problem: string, at = pos): never => {
    throw new ParseError(source, lineAt(at), problem);
  };
  const skip = () => {
    for (;;) {
      const match = /^(?:\s+|#[^\n]*)/.exec(text.slice(pos, pos + 4096));
      if (match === null || match[0] === '') return;
      pos += match[0].length;
    }
  };
  const expect = (literal: string) => {
    skip();
    if (!text.startsWith(literal, pos)) fail(`expected "${literal}"`);
    pos += literal.length;
  };
  const readName = () => {
    skip();
    const match = /^[\w/-]+/.exec(text.slice(pos, pos + 256));
    if (match === null) return fail('expected a name');
    pos += match[0].length;
    return match[0];
  };
  const readString = () => {
    skip();
    const match = /^"[^"]*"/.exec(text.slice(pos));
    if (match === null) return fail('expected a "quoted string"');
    pos += match[0].length;
    return match[0].slice(1, -1);
  };
  const readBlock = () => {
    skip();
    if (!text.startsWith('"""', pos)) fail('expected a """block"""');
    const end = text.indexOf('"""', pos + 3);
    if (end < 0) fail('"""block""" is never closed');
    const start = pos;
    pos = end + 3;
    return { body: dedent(text.slice(start + 3, end)), start };
  };
  const mergeJson = (body: string, start: number, dropHashLines: boolean) => {
    const jsonText = dropHashLines
      ? body
          .split('\n')
          .filter((line) => !line.trimStart().startsWith('#'))
          .join('\n')
      : body;
    let data: unknown;
    try {
      data = JSON.parse(jsonText);
    } catch (error) {
      fail(`grammar block is not valid JSON (${(error as Error).message})`, start);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      fail('grammar block must be a JSON object', start);
    for (const [name, rules] of Object.entries(data as Record<string, unknown>)) {
      if (!Array.isArray(rules)) return fail(ruleListError(name), start);
      merged[name] = rules.map((rule) => {
        if (
          typeof rule !== 'object' ||
          rule === null ||
          typeof (rule as { rhs?: unknown }).rhs !== 'string'
        ) {
          return fail(ruleListError(name), start);
        }
        const condition = (rule as { condition?: unknown }).condition;
        return {
          rhs: (rule as { rhs: string }).rhs,
          condition: typeof condition === 'string' ? condition : '',
        };
      });
    }
  };
  for (;;) {
    skip();
    if (pos >= text.length) break;
    const keyword = readName();
    if (keyword === 'grammar') {
      expect('::');
      const { body, start } = readBlock();
      expect(';');
      mergeJson(body, start, false);
    } else if (keyword === 'action') {
      const name = readName();
      expect('{');
      let template: string | undefined;
      let feedback: string | undefined;
      for (;;) {
        skip();
        if (text.startsWith('}', pos)) {
          pos++;
          break;
        }
        const field = readName();
        expect('::');
        if (field === 'template') template = readString();
        else if (field === 'feedback') feedback = readString();
        else if (field === 'pddl') readBlock();
        else if (field === 'grammar') {
          const { body, start } = readBlock();
          mergeJson(body, start, true);
        } else fail(`unknown field "${field}" in action ${name}`);
        expect(';');
      }
      if (template === undefined || feedback === undefined)
        fail(`action ${name} needs a template and a feedback`);
      actions.set(name.toLowerCase(), { name, template: template!, feedback: feedback! });
    } else fail(`expected "grammar" or "action", found "${keyword}"`);
  }
  return { actions, rules: merged };
}
