// Grounding on its own: atoms interned once, and bindings found through static facts, of the right
// types, counted toward the game's one grounding limit.
import { ParseError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { compileEntities } from './game';
import { compileInitialFacts, createAtomTable, createGrounder } from './grounding';
import { parseDomain, parseProblem } from './pddl';

const domain = parseDomain(
  `(define (domain tiny)
    (:types room thing)
    (:predicates (door ?a - room ?b - room) (at ?t - thing ?r - room))
    (:action move
      :parameters (?t - thing ?from - room ?to - room)
      :precondition (and (door ?from ?to) (at ?t ?from))
      :effect (and (at ?t ?to) (not (at ?t ?from)))))`,
  'tiny.pddl',
);
const problem = parseProblem(
  `(define (problem p) (:domain tiny)
    (:objects hall kitchen cellar - room apple - thing)
    (:init (door hall kitchen) (door kitchen cellar) (at apple hall))
    (:goal (at apple cellar)))`,
  'p.pddl',
  domain,
);

function grounderOf() {
  const entities = compileEntities(domain, problem);
  const fluent = new Set(['at']);
  const atoms = createAtomTable(entities.entityIds.length);
  const facts = compileInitialFacts(problem.init, entities.entityIndex, fluent, atoms, 'p.pddl');
  return {
    entities,
    atoms,
    facts,
    grounder: createGrounder({ entities, fluentPredicates: fluent, facts, atoms }),
  };
}

describe('createAtomTable', () => {
  it('gives an atom one id, in order of first sight, under numeric and text keys alike', () => {
    for (const entityCount of [10, 5000]) {
      const table = createAtomTable(entityCount);
      expect(table.intern('at', [1, 2])).toBe(0);
      expect(table.intern('on', [1, 2, 3, 4])).toBe(1);
      expect(table.intern('at', [1, 2])).toBe(0);
      expect(table.intern('on', [1, 2, 3, 4])).toBe(1);
      expect(table.intern('at', [2, 1])).toBe(2);
      expect(table.atomPred).toEqual(['at', 'on', 'at']);
      expect(table.atomArgs).toEqual([
        [1, 2],
        [1, 2, 3, 4],
        [2, 1],
      ]);
    }
  });
});

describe('compileInitialFacts', () => {
  it('interns every initial fact and keeps the static ones by predicate', () => {
    const { entities, facts, atoms } = grounderOf();
    const [hall, kitchen, cellar] = ['hall', 'kitchen', 'cellar'].map((n) => entities.entityIndex.get(n)!);
    expect(facts.initialAtoms.map((a) => atoms.atomPred[a])).toEqual(['door', 'door', 'at']);
    expect(facts.staticTuples.get('door')).toEqual([
      [hall, kitchen],
      [kitchen, cellar],
    ]);
    expect(facts.staticTuples.has('at')).toBe(false);
    expect(facts.staticMatches('door', 1, cellar!)).toEqual([[kitchen, cellar]]);
  });

  it('refuses a fact that names an undeclared object', () => {
    const { entities, atoms } = grounderOf();
    expect(() =>
      compileInitialFacts([['door', 'hall', 'attic']], entities.entityIndex, new Set(), atoms, 'p.pddl'),
    ).toThrow(ParseError);
  });
});

describe('createGrounder', () => {
  it('binds variables through the static facts, then enumerates the rest by type', () => {
    const { entities, grounder } = grounderOf();
    const action = domain.actions[0]!;
    const bindings: string[] = [];
    const where = { source: 'tiny.pddl', line: undefined, what: 'action move' };
    const literals = [{ pred: 'door', args: ['?from', '?to'], negated: false }];
    grounder.ground(action.params, literals, where, (binding) => {
      bindings.push(action.params.map((p) => entities.entityIds[binding.get(p.name)!]).join(' '));
    });
    expect(bindings).toEqual(['apple hall kitchen', 'apple kitchen cellar']);
  });

  it('grounds effects, leaving out those that cannot change their atom', () => {
    const { entities, atoms, grounder } = grounderOf();
    const action = domain.actions[0]!;
    const id = (name: string) => entities.entityIndex.get(name)!;
    const binding = new Map([
      ['?t', id('apple')],
      ['?from', id('hall')],
      ['?to', id('kitchen')],
    ]);
    const atHall = atoms.intern('at', [id('apple'), id('hall')]);
    const where = { source: 'tiny.pddl', line: undefined, what: 'action move' };
    const effects = grounder.groundEffects(
      action.effects,
      [undefined, undefined],
      binding,
      new Map([[atHall, true]]),
      where,
    );
    expect(
      effects.map((e) => [atoms.atomArgs[e.atom]!.map((a) => entities.entityIds[a]), e.negated]),
    ).toEqual([
      [['apple', 'kitchen'], false],
      [['apple', 'hall'], true],
    ]);
    const stuck = new Map([[atoms.intern('at', [id('apple'), id('kitchen')]), true]]);
    expect(
      grounder.groundEffects(action.effects, [undefined, undefined], binding, stuck, where),
    ).toHaveLength(1);
  });
});
