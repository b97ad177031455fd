// The PDDL reader refuses conditions and effects that name a predicate the domain does not declare:
// such a goal could never be won, such a precondition never met.
import { describe, expect, it } from 'vitest';
import { compileGame } from './game';
import { writeGameFile } from './game-file';
import { generateScene } from './generator';

const scene = generateScene({ floorPlan: 10, trial: 1, taskType: 'pick_and_place_simple' });
const file = writeGameFile(scene, { dialect: 'current' });
const compile = (sources: { domain?: string; problem?: string }) =>
  compileGame({
    domain: sources.domain ?? file.pddl_domain,
    problem: sources.problem ?? file.pddl_problem,
    grammar: file.grammar,
    names: { domain: 'alfred.pddl', problem: 'p.pddl' },
  });

describe('undeclared predicates', () => {
  it('refuses a goal that names a predicate the domain does not declare, naming it', () => {
    const problem = file.pddl_problem.replace(
      /^\(:goal .*$/m,
      '(:goal (exists (?o - object) (and (pickupable ?o) (isPolished ?o))))',
    );
    expect(() => compile({ problem })).toThrow(
      /^p\.pddl:\d+: the goal names predicate "ispolished", which domain "alfred" does not declare in \(:predicates \.\.\.\)$/,
    );
  });

  it('refuses a precondition or an effect that names one', () => {
    const precondition = file.pddl_domain.replace('(pickupable ?o)', '(pickupable ?o) (isShiny ?o)');
    expect(precondition).not.toBe(file.pddl_domain);
    expect(() => compile({ domain: precondition })).toThrow(
      /^alfred\.pddl:\d+: action pickupobject names predicate "isshiny"/,
    );
    const effect = file.pddl_domain.replace('(isClean ?o)\n', '(isClean ?o)\n(isSparkling ?o)\n');
    expect(effect).not.toBe(file.pddl_domain);
    expect(() => compile({ domain: effect })).toThrow(/action cleanobject names predicate "issparkling"/);
  });

  it('accepts equality, which needs no declaration', () => {
    expect(compile({}).goal.length).toBeGreaterThan(0);
    const problem = file.pddl_problem.replace(
      /^\(:goal .*$/m,
      '(:goal (exists (?o1 - object) (exists (?o2 - object) (and (not (= ?o1 ?o2)) (pickupable ?o1) (pickupable ?o2)))))',
    );
    expect(compile({ problem }).goal.length).toBeGreaterThan(0);
  });
});
