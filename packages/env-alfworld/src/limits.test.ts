// Game files that ask for more than the engine gives are refused with a one-line ParseError that
// names the file, the limit and the measured value, before the work that would exhaust the stack or
// the heap.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ParseError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { GameEngine } from './engine';
import { compileGame } from './game';
import { writeGameFile } from './game-file';
import { generateScene } from './generator';
import {
  MAX_DERIVED_CHARS,
  MAX_DNF_BRANCHES,
  MAX_DNF_LITERALS,
  MAX_GAME_FILE_BYTES,
  MAX_GROUNDINGS,
  MAX_NESTING,
  MAX_OBJECTS,
  MAX_RULE_DEPTH,
} from './limits';
import { loadGameFile } from './loaders';
import { dnfSize, toBranches } from './normalize';
import type { Formula } from './pddl';

const scene = generateScene({ floorPlan: 424, trial: 2, taskType: 'pick_clean_then_place_in_recep' });
const file = writeGameFile(scene, { dialect: 'legacy' });
const dir = mkdtempSync(join(tmpdir(), 'alfworld-limits-'));

const withGoal = (goal: string) => file.pddl_problem.replace(/^\(:goal .*$/m, `(:goal ${goal})`);
const compile = (problem: string) =>
  compileGame({
    domain: file.pddl_domain,
    problem,
    grammar: file.grammar,
    names: { domain: 'alfred.pddl', problem: 'p.pddl' },
  });
/** The error `run` throws; fails the test when it throws none. */
const errorOf = (run: () => unknown): Error => {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
};

describe('nesting', () => {
  it(`refuses a goal nested 5,000 (and ...) deep, naming the depth and the limit of ${MAX_NESTING}`, () => {
    const goal = `${'(and '.repeat(5000)}(holdsany agent1)${')'.repeat(5000)}`;
    const error = errorOf(() => compile(withGoal(goal)));
    expect(ParseError.isInstance(error)).toBe(true);
    // define, :goal, 5,000 ands and the atom.
    expect(error.message).toMatch(/^p\.pddl:\d+: lists nest 5003 deep; the limit is 64 \(MAX_NESTING\)$/);
  });

  it('reads the nesting of ALFWorld goals and domain', () => {
    expect(compile(file.pddl_problem).goal.length).toBeGreaterThan(0);
  });

  it('refuses parentheses nested past the limit in a grammar expression', () => {
    const deep = `${'('.repeat(100)}o.name${')'.repeat(100)}`;
    const grammar = file.grammar.replace('"rhs": "You put the {o.name}', `"rhs": "You put the {${deep}}`);
    expect(grammar).not.toBe(file.grammar);
    expect(() =>
      compileGame({ domain: file.pddl_domain, problem: file.pddl_problem, grammar, names: { grammar: 'g' } }),
    ).toThrow(/parentheses nest deeper than 64 \(MAX_NESTING\)/);
  });
});

describe('grammar derivations at play time', () => {
  const withTask = (rhs: string) =>
    file.grammar.replace('"rhs": "Your task is to: put a clean soapbar in cabinet."', `"rhs": "${rhs}"`);
  const play = (grammar: string) =>
    new GameEngine(compileGame({ domain: file.pddl_domain, problem: file.pddl_problem, grammar })).reset();

  it(`refuses a rule that expands to itself after ${MAX_RULE_DEPTH} levels, naming the loop, instead of overflowing the stack`, () => {
    const grammar = withTask('Your task is to: #task#');
    expect(grammar).not.toBe(file.grammar);
    const error = errorOf(() => play(grammar));
    expect(error.message).toBe(
      `plan_trial_gen_424_2: grammar rules nest deeper than ${MAX_RULE_DEPTH} (MAX_RULE_DEPTH) expanding "task", which expands to itself through task → task → task → task`,
    );
  });

  it(`refuses a derivation whose text doubles past ${MAX_DERIVED_CHARS} characters`, () => {
    // task → twice a → twice b → ... : 2^30 copies of "x" without any rule reaching itself.
    const levels = Array.from({ length: 30 }, (_, i) => `"r${i}": [{ "rhs": "#r${i + 1}##r${i + 1}#" }],`);
    const grammar = withTask('#r0#').replace(
      '"intro": [',
      `${levels.join('\n')}\n"r30": [{ "rhs": "x" }],\n"intro": [`,
    );
    expect(() => play(grammar)).toThrow(
      `plan_trial_gen_424_2: the grammar's text grows past ${MAX_DERIVED_CHARS} characters (MAX_DERIVED_CHARS) in rule "r30"`,
    );
  });

  it("plays ALFWorld's own grammar within both limits", () => {
    expect(play(file.grammar)).toContain('Your task is to: put a clean soapbar in cabinet.');
  });
});

describe('disjunctive normal form', () => {
  const a = '(holdsany agent1)';
  it('refuses (and (or A A A A) x20) before expanding its 4^20 alternatives', () => {
    const goal = `(and ${`(or ${a} ${a} ${a} ${a}) `.repeat(20)})`;
    expect(() => compile(withGoal(goal))).toThrow(
      'p.pddl: the goal expands to 1099511627776 alternatives in disjunctive normal form; the limit is 4096 (MAX_DNF_BRANCHES)',
    );
  });

  it(`accepts a goal of exactly ${MAX_DNF_BRANCHES} alternatives`, () => {
    const goal = `(and ${`(or ${a} ${a} ${a} ${a}) `.repeat(6)})`;
    expect(compile(withGoal(goal)).goal).toHaveLength(4096);
  });

  it('refuses a blow-up in a part, even when an unsatisfiable sibling empties the whole', () => {
    const goal = `(and (and ${`(or ${a} ${a} ${a} ${a}) `.repeat(20)}) (not (and)))`;
    expect(() => compile(withGoal(goal))).toThrow(/expands to 1099511627776 alternatives/);
  });

  const atom = (pred: string, ...args: string[]): Formula => ({ kind: 'atom', pred, args });
  const hundred = () => Array.from({ length: 100 }, (_, i) => `o${i}`);
  const origin = { source: 'p.pddl', line: 7, what: 'the goal' };
  const vars = ['?a', '?b', '?c'].map((name) => ({ name, type: 'object' }));

  it(`refuses a forall that repeats its body more than ${MAX_DNF_LITERALS} times`, () => {
    const forall: Formula = { kind: 'forall', vars, body: atom('p', '?a', '?b', '?c') };
    expect(dnfSize(forall, hundred)).toEqual({ branches: 1, literals: 1_000_000 });
    expect(() => toBranches(forall, hundred, origin)).toThrow(
      'p.pddl:7: the goal expands to 1000000 literals in disjunctive normal form; the limit is 65536 (MAX_DNF_LITERALS)',
    );
    const empty: Formula = { kind: 'forall', vars, body: { kind: 'and', parts: [] } };
    expect(() => toBranches(empty, hundred, origin)).toThrow(/expands to 1000000 literals/);
  });

  it('counts what it expands exactly on small formulas', () => {
    const formula: Formula = {
      kind: 'and',
      parts: [
        { kind: 'or', parts: [atom('p'), atom('q'), atom('r')] },
        { kind: 'not', arg: { kind: 'and', parts: [atom('s'), atom('t')] } },
        { kind: 'forall', vars: vars.slice(0, 1), body: atom('u', '?a') },
      ],
    };
    const objects = () => ['x', 'y'];
    const branches = toBranches(formula, objects, origin);
    expect(dnfSize(formula, objects)).toEqual({
      branches: branches.length,
      literals: branches.reduce((sum, branch) => sum + branch.literals.length, 0),
    });
    expect(branches).toHaveLength(6);
  });

  it('expands a negated exists into one conjunction, as large as counted', () => {
    const formula: Formula = {
      kind: 'not',
      arg: {
        kind: 'or',
        parts: [
          { kind: 'exists', vars: vars.slice(0, 1), body: atom('p', '?a') },
          { kind: 'exists', vars: vars.slice(0, 1), body: atom('q', '?a') },
        ],
      },
    };
    const branches = toBranches(formula, hundred, origin);
    expect(branches).toHaveLength(1);
    expect(branches[0]!.literals).toHaveLength(200);
    expect(branches[0]!.literals.every((literal) => literal.negated)).toBe(true);
    expect(dnfSize(formula, hundred)).toEqual({ branches: 1, literals: 200 });
  });
});

describe('objects', () => {
  it(`refuses a problem that declares more than ${MAX_OBJECTS} objects`, () => {
    const extra = Array.from({ length: 5000 }, (_, i) => `extra${i} - object`).join('\n');
    const problem = file.pddl_problem.replace('(:objects\n', `(:objects\n${extra}\n`);
    const declared = (problem.match(/^\S+ - \w+$/gm) ?? []).length;
    expect(() => compile(problem)).toThrow(
      new RegExp(`^p\\.pddl:\\d+: declares ${declared} objects; the limit is 4096 \\(MAX_OBJECTS\\)$`),
    );
  });
});

describe('grounding', () => {
  it(`refuses a goal whose unbound variables would take grounding past ${MAX_GROUNDINGS} steps`, () => {
    const goal = '(exists (?a ?b ?c ?d - object) (holdsany agent1))';
    expect(() => compile(withGoal(goal))).toThrow(
      `p.pddl: grounding the goal takes the game past ${MAX_GROUNDINGS} steps (bindings tried, literals grounded); the limit is ${MAX_GROUNDINGS} (MAX_GROUNDINGS)`,
    );
  });
});

describe('file size', () => {
  it(`refuses a game file over ${MAX_GAME_FILE_BYTES} bytes before reading it`, () => {
    const json = JSON.stringify(file);
    const path = join(dir, 'padded.tw-pddl');
    writeFileSync(path, json + ' '.repeat(MAX_GAME_FILE_BYTES + 1 - json.length));
    expect(() => loadGameFile(path)).toThrow(
      `${path}: file is 4194305 bytes; the limit is 4194304 (MAX_GAME_FILE_BYTES)`,
    );
    writeFileSync(path, json);
    expect(loadGameFile(path).game.goal.length).toBeGreaterThan(0);
  });

  it('refuses a problem text over the limit given to compileGame', () => {
    const problem = `${file.pddl_problem}${' '.repeat(MAX_GAME_FILE_BYTES)}`;
    expect(() => compile(problem)).toThrow(
      `p.pddl: text is ${problem.length} bytes; the limit is 4194304 (MAX_GAME_FILE_BYTES)`,
    );
  });
});
