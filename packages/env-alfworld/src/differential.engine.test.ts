// Differential test against the reference engine (TextWorld's PDDL env with ALFWorld's name
// demangler, driven through reference/play.py). Needs the Python environment from
// reference/setup.sh: skipped loudly without it, and failing without it when CI=true.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng, type Rng } from '@pilotrl/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { referenceSuite } from '../../../tooling/reference-suite';
import {
  playReference,
  ReferenceEngineError,
  type ReferenceEpisode,
  type ReferenceGame,
  type ReferenceJob,
  referenceInstalled,
  referenceSetupCommand,
  referenceVenv,
} from '../reference/client';
import { GameEngine } from './engine';
import { compileGame } from './game';
import { type Dialect, dialectSources, grammarWithTask, writeGameFile } from './game-file';
import { generateScene, possibleTaskTypes } from './generator';
import type { Naming } from './names';
import { solveGame } from './oracle';
import { type TaskType, taskTypes, unseenFloorPlans } from './vocabulary';

const fixtures = join(import.meta.dirname, '../reference/fixtures');
const reference = referenceSuite(
  'the ALFWorld differential test against the reference engine (TextWorld + Fast Downward + ALFWorld)',
  referenceInstalled(),
  referenceSetupCommand,
  'a few minutes; Python 3.9-3.12, a C++ compiler and cmake',
);

function requireReference(): void {
  if (!referenceInstalled()) {
    throw new ReferenceEngineError(
      `CI=true but the ALFWorld reference engine is missing at ${referenceVenv}: run ${referenceSetupCommand} before the tests`,
    );
  }
}

const read = (path: string) => readFileSync(join(fixtures, path), 'utf8');

/** TextWorld's hand-made PDDL fixture (its own domain variant and grammar). */
function textWorldFixture(): ReferenceGame {
  return {
    pddl_domain: read('textworld/domain.pddl'),
    grammar: read('textworld/grammar.twl2'),
    pddl_problem: read('textworld/problem.pddl'),
  };
}

/** ALFWorld's domain and grammar of one dialect around a problem, as ALFWorld assembles a game file. */
function alfworldGame(dialect: Dialect, problem: string, task: string): ReferenceGame {
  return {
    pddl_domain: dialectSources(dialect).domain,
    grammar: grammarWithTask(dialect, task),
    pddl_problem: problem,
  };
}

const kitchenProblem = () => read('kitchen-heat.pddl');

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

describe.skipIf(!reference.run)('reference harness (reference/play.py)', () => {
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

// ---------------------------------------------------------------------------------------------
// Our engine against the reference on generated scenes.

const sceneCount = 200;
const stepsPerScene = 50;
const oracleScenes = 24;
/** ALFWorld's valid_unseen floor plans (real layouts) first, then the others, rooms interleaved. */
const floorPlans = [
  ...unseenFloorPlans,
  ...Array.from({ length: 30 }, (_, i) => [1 + i, 201 + i, 301 + i, 401 + i])
    .flat()
    .filter((plan) => !unseenFloorPlans.includes(plan)),
];

interface Scenario {
  readonly id: string;
  /** How to rebuild it: the generator's options and the dialect (or the fixture's name). */
  readonly origin: string;
  readonly game: ReferenceGame;
  readonly naming: Naming;
  readonly seed: string;
  /** Set for generated scenes. */
  readonly kind?: `${TaskType}/${Dialect}`;
  readonly floorPlan?: number;
  /** Commands played first (an oracle solution); random steps follow. */
  readonly script?: readonly string[];
  readonly steps: number;
}

/** Scene i: task type i mod 6, dialect alternating every 6 scenes, floor plans spread over all rooms. */
function generatedScenarios(): Scenario[] {
  return Array.from({ length: sceneCount }, (_, i) => {
    const taskType: TaskType = taskTypes[i % taskTypes.length]!;
    const dialect: Dialect = Math.floor(i / taskTypes.length) % 2 === 0 ? 'legacy' : 'current';
    const plans = floorPlans.filter((plan) => possibleTaskTypes(plan).includes(taskType));
    const floorPlan = plans[Math.floor(i / taskTypes.length) % plans.length]!;
    const scene = generateScene({ floorPlan, trial: i, taskType });
    const { pddl_domain, grammar, pddl_problem } = writeGameFile(scene, { dialect });
    return {
      id: `scene-${i}`,
      origin: `generateScene({ floorPlan: ${floorPlan}, trial: ${i}, taskType: '${taskType}' }), ${dialect} dialect`,
      game: { pddl_domain, grammar, pddl_problem },
      naming: 'alfworld',
      seed: `differential/${i}`,
      kind: `${taskType}/${dialect}`,
      floorPlan,
      steps: stepsPerScene,
    };
  });
}

/** TextWorld's own fixture, with TextWorld's plain names and with ALFWorld's demangled ones. */
function fixtureScenarios(): Scenario[] {
  return (['id', 'alfworld'] as const).map((naming) => ({
    id: `textworld-fixture-${naming}`,
    origin: `TextWorld's tests/{domain.pddl,problem.pddl,grammar.twl2}, naming ${naming}`,
    game: textWorldFixture(),
    naming,
    seed: `differential/fixture-${naming}`,
    steps: stepsPerScene,
  }));
}

/** The first scenes again, played with our oracle's solution and then a few random steps past the win. */
function oracleScenarios(generated: readonly Scenario[]): Scenario[] {
  return generated.slice(0, oracleScenes).map((scenario) => {
    const { pddl_domain: domain, pddl_problem: problem, grammar } = scenario.game;
    const { actions } = solveGame(compileGame({ domain, problem, grammar }));
    return {
      ...scenario,
      id: scenario.id.replace('scene-', 'oracle-'),
      origin: `${scenario.origin}, oracle solution first`,
      seed: `${scenario.seed}/oracle`,
      script: actions,
      steps: actions.length + 5,
    };
  });
}

/**
 * Mostly a uniformly drawn admissible command; one step in ten probes exact matching instead:
 * padding (stripped by both engines), upper case, `help`, a `think:` line, an unknown command.
 */
function chooseAction(rng: Rng, admissible: readonly string[]): string {
  const pick = rng.pick(admissible);
  if (rng.int(10) !== 0) return pick;
  return rng.pick([`  ${pick} `, pick.toUpperCase(), 'help', 'think: where could it be?', 'go to nowhere']);
}

interface PlayedStep {
  readonly action?: string;
  readonly observation: string;
  readonly admissible: readonly string[];
  readonly won: boolean;
}

function playOurs(scenario: Scenario): PlayedStep[] {
  const { pddl_domain: domain, pddl_problem: problem, grammar } = scenario.game;
  const engine = new GameEngine(compileGame({ domain, problem, grammar, naming: scenario.naming }));
  const rng = createRng(scenario.seed);
  const steps: PlayedStep[] = [
    { observation: engine.reset(), admissible: [...engine.admissibleCommands()], won: engine.won() },
  ];
  const script = scenario.script ?? [];
  for (let k = 1; k <= scenario.steps; k++) {
    const action = script[k - 1] ?? chooseAction(rng, steps[k - 1]!.admissible);
    const { feedback } = engine.step(action);
    steps.push({
      action,
      observation: feedback,
      admissible: [...engine.admissibleCommands()],
      won: engine.won(),
    });
  }
  return steps;
}

interface Mismatch {
  readonly scenario: Scenario;
  readonly step: number;
  readonly actions: readonly string[];
  readonly what: string;
}

function listDiff(ours: readonly string[], reference: readonly string[]): string {
  const missing = reference.filter((command) => !ours.includes(command));
  const extra = ours.filter((command) => !reference.includes(command));
  if (missing.length === 0 && extra.length === 0) return '  same commands, different order';
  return [
    ...missing.map((command) => `  - ${JSON.stringify(command)} (reference only)`),
    ...extra.map((command) => `  + ${JSON.stringify(command)} (ours only)`),
  ].join('\n');
}

function textDiff(ours: string, reference: string): string {
  let at = 0;
  while (at < ours.length && at < reference.length && ours[at] === reference[at]) at++;
  return [
    `  first difference at character ${at}`,
    `  reference: ${JSON.stringify(reference)}`,
    `  ours:      ${JSON.stringify(ours)}`,
  ].join('\n');
}

/** The first step where the two episodes part, or undefined when they agree throughout. */
function firstMismatch(
  scenario: Scenario,
  ours: readonly PlayedStep[],
  reference: ReferenceEpisode,
): Mismatch | undefined {
  const actions = ours.slice(1).map((step) => step.action!);
  for (let k = 0; k < ours.length; k++) {
    const mine = ours[k]!;
    const theirs = reference.steps[k];
    const at = (what: string): Mismatch => ({ scenario, step: k, actions: actions.slice(0, k), what });
    if (theirs === undefined) return at('the reference returned no such step');
    const parts: string[] = [];
    if (mine.observation !== theirs.observation) {
      parts.push(`observation differs:\n${textDiff(mine.observation, theirs.observation)}`);
    }
    if (mine.admissible.join('\n') !== theirs.admissible.join('\n')) {
      parts.push(`admissible commands differ:\n${listDiff(mine.admissible, theirs.admissible)}`);
    }
    if (mine.won !== theirs.won) parts.push(`won: reference ${theirs.won}, ours ${mine.won}`);
    if (parts.length > 0) return at(parts.join('\n'));
  }
  return undefined;
}

/** Writes the game of a mismatch where `alfworld-replay` can play it, and describes the mismatch. */
function report(mismatch: Mismatch, dir: string): string {
  const { scenario, step, actions, what } = mismatch;
  mkdirSync(dir, { recursive: true });
  const gameFile = join(dir, `${scenario.id}.tw-pddl`);
  const actionsFile = join(dir, `${scenario.id}.actions.txt`);
  writeFileSync(gameFile, JSON.stringify({ ...scenario.game, solvable: true }));
  writeFileSync(actionsFile, actions.map((action) => `${action}\n`).join(''));
  return [
    `${scenario.id} (${scenario.origin}), step ${step}${step > 0 ? ` after ${JSON.stringify(actions.at(-1))}` : ' (reset)'}`,
    what,
    `  game: ${gameFile}`,
    `  actions up to here: ${actionsFile}`,
  ].join('\n');
}

describe.skipIf(!reference.run)('differential: our engine against the reference engine', () => {
  const generated = generatedScenarios();
  const scenarios = [...generated, ...oracleScenarios(generated), ...fixtureScenarios()];
  const ours = new Map<string, PlayedStep[]>();
  const reference = new Map<string, ReferenceEpisode>();
  const plainReference = new Map<string, ReferenceEpisode>();
  const plainChecked = ['scene-1', 'scene-7'];

  beforeAll(async () => {
    requireReference();
    for (const scenario of scenarios) ours.set(scenario.id, playOurs(scenario));
    const jobs = scenarios.map((scenario): ReferenceJob => {
      const steps = ours.get(scenario.id)!;
      return {
        id: scenario.id,
        game: scenario.game,
        names: scenario.naming === 'id' ? 'pddl' : 'alfworld',
        actions: steps.slice(1).map((step) => step.action!),
      };
    });
    const workers = Math.max(1, Math.min(4, availableParallelism()));
    const [fast, plain] = await Promise.all([
      playReference(jobs, { memoize: true, workers }),
      playReference(jobs.filter((job) => plainChecked.includes(job.id))),
    ]);
    for (const episode of fast) reference.set(episode.id, episode);
    for (const episode of plain) plainReference.set(episode.id, episode);
  }, 1_200_000);

  it('covers all six task types in both dialects, every room type and the valid_unseen floor plans', () => {
    const covered = new Set(scenarios.map((scenario) => scenario.kind));
    for (const type of taskTypes) {
      expect(covered).toContain(`${type}/legacy`);
      expect(covered).toContain(`${type}/current`);
    }
    expect(generated).toHaveLength(sceneCount);
    const plans = new Set(generated.map((scenario) => scenario.floorPlan));
    for (const plan of unseenFloorPlans) expect(plans).toContain(plan);
    for (const room of [0, 200, 300, 400]) {
      expect([...plans].filter((plan) => plan! > room && plan! <= room + 30).length).toBeGreaterThan(5);
    }
  });

  it("wins on the reference engine with our oracle's solutions", () => {
    const late = scenarios
      .filter((scenario) => scenario.script !== undefined)
      .filter((scenario) => !reference.get(scenario.id)!.steps[scenario.script!.length]!.won)
      .map((scenario) => scenario.origin);
    expect(late).toEqual([]);
  });

  it('uses a fast reference mode that plays exactly like the plain reference', () => {
    for (const id of plainChecked) expect(reference.get(id)!.steps).toEqual(plainReference.get(id)!.steps);
  });

  it(`gives identical observations, admissible commands and won on every step (${sceneCount} scenes x ${stepsPerScene} steps)`, () => {
    const dir = join(tmpdir(), 'alfworld-differential');
    const mismatches = scenarios
      .map((scenario) => firstMismatch(scenario, ours.get(scenario.id)!, reference.get(scenario.id)!))
      .filter((mismatch): mismatch is Mismatch => mismatch !== undefined);
    if (mismatches.length > 0) {
      console.error(
        `${mismatches.length} of ${scenarios.length} scenes part from the reference:\n\n` +
          mismatches.map((mismatch) => report(mismatch, dir)).join('\n\n'),
      );
    }
    expect(mismatches.map((mismatch) => `${mismatch.scenario.id} step ${mismatch.step}`)).toEqual([]);
  });
});
