// Fuzzing of game files: random s-expressions nested up to and past MAX_NESTING, random (and ...)
// / (or ...) / (exists ...) goal trees, random tokens, and a real game cut short, retokenised or
// with bytes flipped, given to compileGame and the loaders. Each compiles, or is refused with a
// one-line ParseError that quotes no control characters; none exhausts the stack, and the heap
// stays within a bound. The game is ALFWorld's domain and grammar around the kitchen fixture (27
// objects), small enough to compile hundreds of times.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng, type Rng } from '@pilotrl/core';
import { refusalProblem } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { compileGame } from './game';
import { dialectSources, grammarWithTask } from './game-file';
import { MAX_NESTING } from './limits';
import { loadGameFile, loadProblemFile } from './loaders';

const file = {
  pddl_domain: dialectSources('legacy').domain,
  grammar: grammarWithTask('legacy', 'put a hot apple in countertop'),
  pddl_problem: readFileSync(join(import.meta.dirname, '../reference/fixtures/kitchen-heat.pddl'), 'utf8'),
};
const dir = mkdtempSync(join(tmpdir(), 'alfworld-fuzz-'));
/** What the heap may grow by over a whole fuzz run. */
const HEAP_BOUND = 512 * 1024 * 1024;

/** Runs every case, then fails with the first problems found: a bad refusal, or the heap past its bound. */
function fuzz(cases: readonly { what: string; run: () => unknown }[]): void {
  const heapAtStart = process.memoryUsage().heapUsed;
  const failures: string[] = [];
  let compiled = 0;
  for (const [i, { what, run }] of cases.entries()) {
    const problem = refusalProblem(
      () => {
        run();
        compiled++;
      },
      { oneLine: true },
    );
    if (problem !== undefined) failures.push(`case ${i} (${what}): ${problem}`);
    const growth = process.memoryUsage().heapUsed - heapAtStart;
    if (growth > HEAP_BOUND) failures.push(`case ${i} (${what}): the heap grew by ${growth} bytes`);
  }
  expect(failures.slice(0, 5)).toEqual([]);
  // The cases reach past what compiles.
  expect(compiled).toBeLessThan(cases.length);
}

const compile = (problem: string, domain = file.pddl_domain, grammar = file.grammar) =>
  compileGame({
    domain,
    problem,
    grammar,
    names: { domain: 'd.pddl', problem: 'p.pddl', grammar: 'g.twl2' },
  });
const withGoal = (goal: string) => file.pddl_problem.replace(/^\(:goal .*$/m, `(:goal ${goal})`);

// Atoms over the agent and the variables the quantifiers bind; outside them, ?o and ?r are unbound.
const atoms = ['(holdsany agent1)', '(isHot ?o)', '(heatable ?o)', '(openable ?r)', '(inReceptacle ?o ?r)'];
const keywords = [
  'and',
  'or',
  'not',
  'exists',
  'forall',
  'when',
  'imply',
  '=',
  'define',
  'problem',
  'domain',
  ':domain',
  ':objects',
  ':init',
  ':goal',
  ':types',
  ':predicates',
  ':action',
  ':parameters',
  ':precondition',
  ':effect',
  '?o',
  '?r',
  '-',
  'object',
  'agent1',
  'holdsany',
  'atlocation',
];
const oddTokens = [
  'é',
  '\u0000',
  '\u0007bell',
  '\u001b[31m',
  'x'.repeat(20_000),
  '(',
  ')',
  ';',
  '"',
  '{',
  '}',
];

const token = (rng: Rng) => (rng.int(10) === 0 ? rng.pick(oddTokens) : rng.pick(keywords));

/**
 * A random s-expression nested `depth` deep along one spine, its other items at most two deep, so
 * that its size grows with its depth, not exponentially.
 */
function sexpr(rng: Rng, depth: number): string {
  if (depth === 0) return token(rng);
  const items = Array.from({ length: rng.int(5) }, () =>
    rng.int(2) === 0 ? token(rng) : sexpr(rng, Math.min(depth - 1, 1)),
  );
  items.splice(rng.int(items.length + 1), 0, sexpr(rng, depth - 1));
  return `(${items.join(' ')})`;
}

/** A random goal of and/or/not/exists/forall over real atoms: a spine `depth` deep, bushy near the leaves. */
function goalTree(rng: Rng, depth: number): string {
  if (depth === 0) return rng.pick(atoms);
  const kind = rng.pick(['and', 'or', 'or', 'not', 'exists', 'forall']);
  if (kind === 'not') return `(not ${goalTree(rng, depth - 1)})`;
  if (kind === 'exists' || kind === 'forall') {
    const variable = rng.pick(['(?o - object)', '(?r - receptacle)', '(?o - object ?r - receptacle)']);
    return `(${kind} ${variable} ${goalTree(rng, depth - 1)})`;
  }
  const parts = Array.from({ length: rng.intBetween(0, 5) }, () => goalTree(rng, Math.min(depth - 1, 2)));
  parts.splice(rng.int(parts.length + 1), 0, goalTree(rng, depth - 1));
  return `(${kind} ${parts.join(' ')})`;
}

const cut = (rng: Rng, text: string) => text.slice(0, rng.int(text.length));

function flipBytes(rng: Rng, text: string): Buffer {
  const bytes = Buffer.from(text);
  for (let n = rng.intBetween(1, 6); n > 0; n--) bytes[rng.int(bytes.length)] = rng.int(256);
  return bytes;
}

/** The problem with `count` of its tokens replaced by random ones. */
function retokenised(rng: Rng, text: string, count: number): string {
  const tokens = text.split(/(\s+|\(|\))/);
  for (let n = 0; n < count; n++) {
    const at = rng.int(tokens.length);
    if (tokens[at]!.trim() !== '') tokens[at] = token(rng);
  }
  return tokens.join('');
}

describe('game file fuzz', () => {
  it(`refuses random s-expressions, nested up to twice MAX_NESTING (${MAX_NESTING}), as problem or domain (120 cases)`, () => {
    const rng = createRng('game-fuzz/sexpr');
    fuzz(
      Array.from({ length: 120 }, (_, i) => {
        const text = sexpr(rng, rng.intBetween(1, 2 * MAX_NESTING + 10));
        const wrapped = rng.int(2) === 0 ? text : `(define (problem p) (:domain alfred) ${text})`;
        return i % 3 === 0
          ? { what: `domain ${wrapped.slice(0, 40)}`, run: () => compile(file.pddl_problem, wrapped) }
          : { what: `problem ${wrapped.slice(0, 40)}`, run: () => compile(wrapped) };
      }),
    );
  }, 30_000);

  it('compiles random (and ...)/(or ...) goal trees or refuses them by their size (100 cases)', () => {
    const rng = createRng('game-fuzz/goals');
    fuzz(
      Array.from({ length: 100 }, () => {
        const goal = goalTree(rng, rng.intBetween(1, rng.int(4) === 0 ? 90 : 12));
        return { what: `goal ${goal.slice(0, 60)}`, run: () => compile(withGoal(goal)) };
      }),
    );
  }, 30_000);

  it('refuses real game texts cut short, retokenised or with bytes flipped (150 cases)', () => {
    const rng = createRng('game-fuzz/real');
    const texts = { problem: file.pddl_problem, domain: file.pddl_domain, grammar: file.grammar };
    fuzz(
      Array.from({ length: 150 }, () => {
        const part = rng.pick(['problem', 'domain', 'grammar'] as const);
        const damage = rng.pick(['cut', 'flip', 'tokens'] as const);
        const text =
          damage === 'cut'
            ? cut(rng, texts[part])
            : damage === 'flip'
              ? flipBytes(rng, texts[part]).toString('utf8')
              : retokenised(rng, texts[part], rng.intBetween(1, 5));
        const sources = { ...texts, [part]: text };
        return {
          what: `${part} ${damage}`,
          run: () => compile(sources.problem, sources.domain, sources.grammar),
        };
      }),
    );
  }, 30_000);

  it('loadGameFile and loadProblemFile refuse damaged files on the disk (80 cases)', () => {
    const rng = createRng('game-fuzz/files');
    const json = JSON.stringify(file);
    const traj = JSON.stringify({
      task_id: 'trial_1',
      task_type: 'pick_and_place_simple',
      pddl_params: { object_target: 'Apple', parent_target: 'Fridge' },
    });
    fuzz(
      Array.from({ length: 80 }, (_, i) => {
        const caseDir = join(dir, `case-${i}`);
        const kind = rng.int(4);
        const bytes =
          kind === 0
            ? cut(rng, json)
            : kind === 1
              ? flipBytes(rng, json)
              : kind === 2
                ? `${'['.repeat(rng.intBetween(10, 50_000))}`
                : JSON.stringify({ ...file, [rng.pick(Object.keys(file))]: rng.pick([1, null, [], 'x']) });
        mkdirSync(caseDir);
        writeFileSync(join(caseDir, 'game.tw-pddl'), bytes);
        writeFileSync(
          join(caseDir, 'traj_data.json'),
          rng.int(2) === 0 ? cut(rng, traj) : flipBytes(rng, traj),
        );
        writeFileSync(join(caseDir, 'initial_state.pddl'), file.pddl_problem);
        return i % 2 === 0
          ? { what: `game.tw-pddl kind ${kind}`, run: () => loadGameFile(join(caseDir, 'game.tw-pddl')) }
          : { what: 'traj_data.json', run: () => loadProblemFile(join(caseDir, 'initial_state.pddl')) };
      }),
    );
  }, 30_000);
});
