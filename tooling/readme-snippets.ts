// The code blocks of a README, as the README tests (`tooling/readme-test.ts`) and the pack check
// (`tooling/pack-check.ts`) read them. A ```ts block is a program that is typechecked and run;
// a word after `ts` in the fence says otherwise, and stays invisible on GitHub and npm:
//   ```ts no-run    typechecked, not run (it needs input from outside: a real game file, a key)
//   ```ts vitest    a test file: its tests run inside the README test
//   ```ts fragment  lines that continue an earlier snippet; neither typechecked nor run (keep rare)

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
