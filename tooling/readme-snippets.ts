// The code blocks of a README, as the README tests (`tooling/readme-test.ts`) and the pack check
// (`tooling/pack-check.ts`) read them. A ```ts block is a program that is typechecked and run;
// a word after `ts` in the fence says otherwise, and stays invisible on GitHub and npm:
//   ```ts no-run    typechecked, not run (it needs input from outside: a real game file, a key)
//   ```ts vitest    a test file: its tests run inside the README test
//   ```ts fragment  lines that continue an earlier snippet; neither typechecked nor run (keep rare)
// A README also says, near the top, which packages its examples use: a paragraph that starts with
// `Install:` and holds the `npm install ...` commands, e.g.
//   Install: `npm install @pilotrl/agent @pilotrl/core @pilotrl/env-maze`

import { isBuiltin } from 'node:module';

export type SnippetMode = 'run' | 'no-run' | 'vitest' | 'fragment';

export interface CodeBlock {
  /** The fence's language (`ts`, `sh`, `yaml`, ...), empty when it names none. */
  readonly lang: string;
  /** 1-based line of the opening fence in the README. */
  readonly line: number;
  readonly code: string;
}

export interface Snippet extends CodeBlock {
  readonly mode: SnippetMode;
}

const modes: readonly SnippetMode[] = ['no-run', 'vitest', 'fragment'];

/** Every fenced code block of a markdown text, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, fence, info] = open;
    const end = lines.findIndex((text, j) => j > i && text.trimEnd() === fence);
    if (end === -1) throw new Error(`README line ${i + 1}: the code block opened here is never closed`);
    blocks.push({ lang: info!.trim(), line: i + 1, code: `${lines.slice(i + 1, end).join('\n')}\n` });
    i = end;
  }
  return blocks;
}

/** The ```ts blocks of a markdown text with what a README test does with each. */
export function tsSnippets(markdown: string): Snippet[] {
  return codeBlocks(markdown).flatMap((block) => {
    const [lang, ...words] = block.lang.split(/\s+/);
    if (lang !== 'ts' && lang !== 'typescript') return [];
    const unknown = words.filter((word) => !modes.includes(word as SnippetMode));
    if (unknown.length > 0 || words.length > 1) {
      throw new Error(
        `README line ${block.line}: \`\`\`${block.lang} is not a snippet kind; write \`\`\`ts, or \`\`\`ts followed by one of ${modes.join(', ')}`,
      );
    }
    return [{ ...block, lang, mode: (words[0] as SnippetMode | undefined) ?? 'run' }];
  });
}

/** The README's first example: its first ```ts block, whatever its mode. */
export function firstExample(markdown: string): Snippet | undefined {
  return tsSnippets(markdown)[0];
}

/**
 * The packages the README's Install paragraph installs (every `npm install` / `npm i` command in
 * it, options and version ranges left out), or undefined when it has none before its first section.
 */
export function installedPackages(markdown: string): string[] | undefined {
  const head = markdown.split(/^## /m)[0]!;
  const paragraph = /^Install:[\s\S]*?(?:\n\s*\n|(?![\s\S]))/m.exec(head)?.[0];
  if (paragraph === undefined) return undefined;
  return [...paragraph.matchAll(/`npm (?:install|i) ([^`]+)`/g)].flatMap(([, args]) =>
    args!
      .split(/\s+/)
      .filter((word) => word !== '' && !word.startsWith('-'))
      .map((word) => word.replace(/(?<=.)@.*$/, '')),
  );
}

/** The npm packages a snippet imports: bare specifiers as package names, Node's built-ins left out. */
export function importedPackages(code: string): string[] {
  const specifiers = [...code.matchAll(/\bfrom\s+'([^']+)'|\bimport\s*\(?\s*'([^']+)'/g)].map(
    (match) => (match[1] ?? match[2])!,
  );
  const packages = specifiers
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('/') && !isBuiltin(specifier))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  return [...new Set(packages)];
}
