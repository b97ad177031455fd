// Every README snippet is a test. A package's `src/readme.test.ts` calls `testReadme`, which
// writes each ```ts block of the package's README into a scratch folder inside the package (so
// imports resolve as the package's own sources do, through the `@pilotrl/source` condition),
// typechecks them all with the package's tsconfig, and runs each one by importing it. A snippet
// that computes something asserts it with `node:assert/strict`, so a README that lies fails here.
// It also holds the README's Install line to the packages its snippets import, so a user who
// installs what the line says can run every example.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { codeBlocks, importedPackages, installedPackages, type Snippet, tsSnippets } from './readme-snippets';

export interface ReadmeTestOptions {
  /**
   * The language of the README's opening code block, its smallest real use: `ts` for a library,
   * `sh` for a command-line app.
   */
  opensWith?: 'ts' | 'sh';
}

interface WrittenSnippet extends Snippet {
  readonly file: string;
}

/** Registers the README tests of the package at `packageDir` (await it at the test file's top level). */
export async function testReadme(packageDir: string, options: ReadmeTestOptions = {}): Promise<void> {
  const opensWith = options.opensWith ?? 'ts';
  const readmePath = join(packageDir, 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const scratch = mkdtempSync(join(packageDir, '.readme-snippets-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const snippets: WrittenSnippet[] = tsSnippets(readme).map((snippet) => {
    const file = join(scratch, `readme-line-${snippet.line}${snippet.mode === 'vitest' ? '.test' : ''}.ts`);
    // `export {}` keeps a snippet without imports a module, so its names stay its own.
    writeFileSync(file, `${snippet.code}export {};\n`);
    return { ...snippet, file };
  });

  describe('README', () => {
    it(`opens with its smallest real use, a runnable ${opensWith} snippet, before any section`, () => {
      const [first] = codeBlocks(readme);
      const firstSection = readme.search(/^## /m);
      expect(first, 'README.md has no code block').toBeDefined();
      const [lang, mode] = first!.lang.split(/\s+/);
      expect(lang).toBe(opensWith);
      if (opensWith === 'ts') expect(mode === undefined || mode === 'vitest').toBe(true);
      if (firstSection !== -1)
        expect(readme.slice(0, firstSection).split('\n').length).toBeGreaterThan(first!.line);
    });

    it('says near the top, in an Install line, every package its snippets import', () => {
      const installed = installedPackages(readme);
      expect(
        installed,
        'README.md has no Install line before its first section: add "Install: `npm install <the package> @pilotrl/core ...`" naming every package its examples import',
      ).toBeDefined();
      const { name } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { name: string };
      expect(installed, `the Install line does not install ${name} itself`).toContain(name);
      const missing = snippets.flatMap((snippet) =>
        importedPackages(snippet.code)
          .filter((name) => !installed!.includes(name))
          .map((name) => `${name} (imported at README.md:${snippet.line})`),
      );
      expect(missing, 'packages the snippets import that the Install line does not name').toEqual([]);
    });

    it('has snippets that typecheck against the sources', () => {
      const checked = snippets.filter((snippet) => snippet.mode !== 'fragment');
      expect(typeErrors(packageDir, checked)).toEqual([]);
    });

    for (const snippet of snippets.filter((s) => s.mode === 'run')) {
      it(`runs the snippet at README.md:${snippet.line}`, async () => {
        await import(pathToFileURL(snippet.file).href);
      });
    }
  });

  // A test-file snippet registers its own tests, which vitest collects with this file's.
  for (const snippet of snippets.filter((s) => s.mode === 'vitest')) {
    describe(`README.md:${snippet.line} (a test file)`, async () => {
      await import(pathToFileURL(snippet.file).href);
    });
  }
}

/** Type errors of the snippets, as `README.md:<line>: <message>`, compiled with the package's tsconfig. */
function typeErrors(packageDir: string, snippets: readonly WrittenSnippet[]): string[] {
  if (snippets.length === 0) return [];
  const configPath = join(packageDir, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({
    rootNames: snippets.map((snippet) => snippet.file),
    options: { ...parsed.options, noEmit: true },
  });
  return snippets.flatMap((snippet) => {
    const source = program.getSourceFile(snippet.file)!;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    return diagnostics.map((diagnostic) => {
      const line =
        diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
      return `README.md:${snippet.line + 1 + line}: ${message}`;
    });
  });
}
