// Differential test against the reference engine (TextWorld's PDDL env with ALFWorld's name
// demangler, driven through reference/play.py). Needs the Python environment from
// reference/setup.sh: skipped loudly without it, and failing without it when CI=true.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRng } from '@pilotrl/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  playReference,
  type ReferenceEpisode,
  type ReferenceGame,
  type ReferenceJob,
  referenceInstalled,
  referenceSetupCommand,
  referenceVenv,
} from '../reference/client';

const sharedData = join(import.meta.dirname, '../../../../shared/alfworld-data');
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const installed = referenceInstalled();
const runReference = installed || inCi;

if (!installed && !inCi) {
  console.warn(
    [
      '',
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      '!! SKIPPED: the ALFWorld differential test against the reference engine.',
      `!! The reference (TextWorld + Fast Downward + ALFWorld) is not installed at ${referenceVenv}.`,
      `!! Install it (a few minutes, needs Python 3.9-3.12, a C++ compiler and cmake):`,
      `!!     ${referenceSetupCommand}`,
      '!! With CI=true this test fails instead of skipping.',
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      '',
    ].join('\n'),
  );
}

function requireReference(): void {
  if (!referenceInstalled()) {
    throw new Error(
      `CI=true but the ALFWorld reference engine is missing at ${referenceVenv}: run ${referenceSetupCommand} before the tests`,
    );
  }
}

const read = (path: string) => readFileSync(join(sharedData, path), 'utf8');

/** TextWorld's hand-made PDDL fixture (its own domain variant and grammar). */
function textWorldFixture(): ReferenceGame {
  const dir = 'microsoft__TextWorld@ebae03b/textworld/envs/pddl/tests';
  return {
    pddl_domain: read(`${dir}/domain.pddl`),
    grammar: read(`${dir}/grammar.twl2`),
    pddl_problem: read(`${dir}/problem.pddl`),
  };
}

/** ALFWorld's domain and grammar of one dialect around a problem, as ALFWorld assembles a game file. */
function alfworldGame(dialect: 'legacy' | 'current', problem: string, task: string): ReferenceGame {
  const dir = `alfworld__alfworld@${dialect === 'legacy' ? '9b73cd5' : 'ca98194'}/alfworld/data`;
  return {
    pddl_domain: read(`${dir}/alfred.pddl`),
    grammar: read(`${dir}/alfred.twl2`).replace('UNKNOWN GOAL', task),
    pddl_problem: problem,
  };
}

const kitchenProblem = () =>
  readFileSync(join(import.meta.dirname, '../reference/fixtures/kitchen-heat.pddl'), 'utf8');

const kitchenTask = 'put a hot apple in countertop';
const kitchenRoute = (put: string) => [
  'go to cabinet 2',
  'go to cabinet 1',
  'open cabinet 1',
  'take mug 1 from cabinet 2',
  'put mug 1 in/on cabinet 1',
  'move mug 1 to cabinet 1',
  'look',
  'go to countertop 1',
  'take apple 2 from countertop 1',
  'go to microwave 1',
  'heat apple 2 with microwave 1',
  'examine apple 2',
  'go to countertop 1',
  put,
];

describe.skipIf(!runReference)('reference harness (reference/play.py)', () => {
  // One process start for every case below.
  const episodes = new Map<string, ReferenceEpisode>();
  const memoizedEpisodes = new Map<string, ReferenceEpisode>();
  const episode = (id: string) => episodes.get(id)!;

  beforeAll(async () => {
    requireReference();
    const kitchens: ReferenceJob[] = [
      {
        id: 'kitchen-legacy',
        game: alfworldGame('legacy', kitchenProblem(), kitchenTask),
        actions: kitchenRoute('put apple 2 in/on countertop 1'),
      },
      {
        id: 'kitchen-current',
        game: alfworldGame('current', kitchenProblem(), kitchenTask),
        actions: kitchenRoute('move apple 2 to countertop 1'),
      },
      {
        id: 'kitchen-random',
        game: alfworldGame('current', kitchenProblem(), kitchenTask),
        random: { steps: 20, seed: 2024 },
      },
    ];
    const [played, memoized] = await Promise.all([
      playReference([
        {
          id: 'textworld-fixture',
          game: textWorldFixture(),
          names: 'pddl',
          actions: ['go to desk', 'use desklamp', 'take cd from desk', 'dummy'],
        },
        { id: 'textworld-fixture-alfworld-names', game: textWorldFixture(), actions: ['go to desk '] },
        ...kitchens,
      ]),
      playReference(kitchens, { memoize: true }),
    ]);
    for (const one of memoized) memoizedEpisodes.set(one.id, one);
    for (const one of played) episodes.set(one.id, one);
  }, 120_000);

  it("wins TextWorld's PDDL fixture with its walkthrough, with TextWorld's plain names", () => {
    const steps = episode('textworld-fixture').steps;
    expect(steps[0]!.observation).toBe(
      '-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a bed, a desk, a drawer, a garbagecan, a laundryhamper, a safe, and a shelf.\n\nYour task is to examine a CD under a light source.',
    );
    expect(steps[0]!.admissible).toContain('go to desk');
    expect(steps.map((step) => step.won)).toEqual([false, false, false, true, true]);
    expect(steps[2]!.observation).toBe('You turn on the desklamp.');
    expect(steps[3]!.observation).toBe('You pick up the cd from the desk.');
    expect(steps[4]!.observation).toBe('Nothing happens.');
  });

  it('shows why demangled names without _bar_ are unplayable: they end in a space that step() strips', () => {
    const steps = episode('textworld-fixture-alfworld-names').steps;
    expect(steps[0]!.admissible).toContain('go to desk ');
    expect(steps[1]!.observation).toBe('Nothing happens.');
  });

  it('plays an ALFWorld-style kitchen in the legacy and the current dialect', () => {
    const legacy = episode('kitchen-legacy');
    const current = episode('kitchen-current');
    const intro =
      '-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, a countertop 1, a fridge 1, a microwave 1, and a sinkbasin 1.\n\nYour task is to: put a hot apple in countertop.';
    expect(legacy.steps[0]!.observation).toBe(intro);
    expect(current.steps[0]!.observation).toBe(intro);
    expect(current.steps[0]!.admissible).toContain('help');
    expect(legacy.steps[0]!.admissible).not.toContain('help');

    const legacyText = legacy.steps.map((step) => step.observation);
    const currentText = current.steps.map((step) => step.observation);
    expect(legacyText[1]).toBe('You arrive at loc 6. On the cabinet 2, you see a mug 1.');
    expect(currentText[1]).toBe('You arrive at cabinet 2. On the cabinet 2, you see a mug 1.');
    // cabinet 1 shares cabinet 2's location: going there is not admissible.
    expect(legacyText[2]).toBe('Nothing happens.');
    expect(legacyText[3]).toBe('You open the cabinet 1. The cabinet 1 is open. In it, you see nothing.');
    expect(legacyText[5]).toBe('You put the mug 1 in/on the cabinet 1.');
    expect(legacyText[6]).toBe('Nothing happens.');
    expect(currentText[5]).toBe('Nothing happens.');
    expect(currentText[6]).toBe('You move the mug 1 to the cabinet 1.');
    // The mug left cabinet 2 for another receptacle at the same spot: "Next to it" lists it.
    expect(legacyText[7]).toBe('You are facing the cabinet 2, and cabinet 1. Next to it, you see a mug 1.');
    expect(legacyText[11]).toBe('You heat the apple 2 using the microwave 1.');
    expect(legacyText[12]).toBe('This is a hot apple 2.');
    expect(legacyText[14]).toBe('You put the apple 2 in/on the countertop 1.');
    expect(currentText[14]).toBe('You move the apple 2 to the countertop 1.');
    for (const played of [legacy, current]) {
      expect(played.steps.map((step) => step.won)).toEqual([...Array(14).fill(false), true]);
      for (const step of played.steps) expect(step.admissible).toEqual([...step.admissible].sort());
    }
  });

  it("draws random admissible commands exactly like @pilotrl/core's createRng(seed).pick", () => {
    const steps = episode('kitchen-random').steps;
    const rng = createRng(2024);
    for (let k = 1; k < steps.length; k++) {
      expect(steps[k]!.action).toBe(rng.pick(steps[k - 1]!.admissible));
    }
    expect(steps.length).toBeGreaterThan(1);
  });

  it('gives the same episodes with --memoize (the fast mode the differential test uses)', () => {
    for (const id of ['kitchen-legacy', 'kitchen-current', 'kitchen-random']) {
      expect(memoizedEpisodes.get(id)!.steps).toEqual(episode(id).steps);
    }
  });
});
