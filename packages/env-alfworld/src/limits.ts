// Limits on what a game file may ask of the engine, each checked before the work it bounds: a file's
// size before it is read, list nesting before the text is parsed, objects as they are declared, a
// condition's disjunctive normal form before it is expanded, and the steps of grounding as they are
// taken. ALFWorld's files stay far below all of them; a file beyond one is refused with a
// ParseError that names the file, the limit and the measured value, instead of exhausting the stack
// or the heap. The grammar's derivations are bounded as they run, at play time (an EnvError naming
// the rule).
import { Buffer } from 'node:buffer';
import { ParseError } from '@pilotrl/core';

/** Largest game file, or text of one, in bytes (ALFWorld-format game files: 94 KB at most). */
export const MAX_GAME_FILE_BYTES = 4 * 1024 * 1024;

/** Deepest nesting of PDDL lists, and of parentheses in a grammar expression (ALFWorld's: 9 deep). */
export const MAX_NESTING = 64;

/** Most objects a problem declares, and constants a domain declares (ALFWorld's: 240 at most). */
export const MAX_OBJECTS = 4096;

/** Most alternatives (conjunctions) in a condition's disjunctive normal form (ALFWorld's: 3). */
export const MAX_DNF_BRANCHES = 4096;

/** Most literals over all those alternatives; `forall` repeats its body per object (ALFWorld's: 14). */
export const MAX_DNF_LITERALS = 65_536;

/**
 * Most steps of grounding a game's actions, effects and goal: bindings of variables tried, and
 * literals grounded (ALFWorld's: 77,016). An `exists` or a parameter that no static fact binds is
 * tried with every object of its type, so k of them over n objects take n^k steps.
 */
export const MAX_GROUNDINGS = 1_000_000;

/** Deepest chain of grammar rules one derivation expands (ALFWorld's recorded games: 4); a rule that reaches itself hits it. */
export const MAX_RULE_DEPTH = 256;

/** Longest text one derivation writes, in characters (ALFWorld's recorded games: 660). */
export const MAX_DERIVED_CHARS = 1_000_000;

/** Refuses a text (a game file's part, a domain, a problem or a grammar) over `MAX_GAME_FILE_BYTES`. */
export function checkTextSize(text: string, source: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_GAME_FILE_BYTES) {
    throw new ParseError(
      source,
      undefined,
      `text is ${bytes} bytes; the limit is ${MAX_GAME_FILE_BYTES} (MAX_GAME_FILE_BYTES)`,
    );
  }
}
