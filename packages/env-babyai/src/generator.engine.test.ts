// Our level generator against Minigrid v2.3.1's own generators (reference/drive-minigrid.py): not
// seed for seed, since the generator is not exact, but in distribution. For every generated family,
// 300 levels of each side are summed up (grid size, objects, doors, locked doors, step limit, how
// far the agent starts from the object, the mission's wording) and must agree within sampling noise.
// Needs the venv of reference/setup.sh: skipped loudly without it, failing without it when CI is set.
import { beforeAll, describe, expect, it } from 'vitest';
import { referenceSuite } from '../../../tooling/reference-suite';
import { driveMinigrid, referenceInstalled, referenceSetupCommand, referenceVenv } from '../reference/client';
import { GENERATED_LEVELS, generateLevel } from './generator';
import { type InstrData, type LevelState, type ObjDescData, parseLevelState } from './level';

const reference = referenceSuite(
  "the BabyAI generator's comparison with Minigrid v2.3.1's level distributions",
  referenceInstalled(),
  referenceSetupCommand,
  'PyPI, a minute',
);

/** Enough that sampling noise stays well inside the tolerances below (shares ± 0.15, means ± 10-15%). */
const LEVELS_PER_FAMILY = 300;
/** Minigrid's seeds, away from the shipped 0-49. */
const MINIGRID_SEEDS = 10_000;

/** An object description in a mission: article, colour, type, location. */
const DESCRIPTION =
  /\b(a|the) ((?:red|green|blue|purple|yellow|grey) )?(key|ball|box|door|object)( (?:on your left|on your right|in front of you|behind you))?/g;

interface Summary {
  sizes: Set<string>;
  /** Means per level. */
  objects: number;
  doors: number;
  lockedDoors: number;
  maxSteps: number;
  /** Cells from the agent to the nearest object of the mission's first description. */
  distance: number;
  /** How often each sentence structure occurs, descriptions blanked: "go to X, then pick up X". */
  structures: Map<string, number>;
  /** Shares of the descriptions that say "a" (several objects match), name a colour, a location. */
  plural: number;
  colored: number;
  located: number;
}

function summarize(levels: readonly LevelState[]): Summary {
  const summary: Summary = {
    sizes: new Set(),
    objects: 0,
    doors: 0,
    lockedDoors: 0,
    maxSteps: 0,
    distance: 0,
    structures: new Map(),
    plural: 0,
    colored: 0,
    located: 0,
  };
  const descriptions: RegExpMatchArray[] = [];
  for (const level of levels) {
    const cells = level.grid_rows.flatMap((row) => row.split(' '));
    summary.sizes.add(`${level.width}x${level.height}`);
    summary.objects += cells.filter((cell) => '567'.includes(cell[0]!)).length / levels.length;
    summary.doors += cells.filter((cell) => cell[0] === '4').length / levels.length;
    summary.lockedDoors += cells.filter((cell) => cell[0] === '4' && cell[2] === '2').length / levels.length;
    summary.maxSteps += level.max_steps / levels.length;
    const [ax, ay] = level.agent_pos;
    const nearest = Math.min(
      ...firstDescription(level.instrs).obj_poss.map(([x, y]) => Math.abs(x - ax) + Math.abs(y - ay)),
    );
    summary.distance += nearest / levels.length;
    const structure = level.mission.replace(DESCRIPTION, 'X');
    summary.structures.set(structure, (summary.structures.get(structure) ?? 0) + 1 / levels.length);
    descriptions.push(...level.mission.matchAll(DESCRIPTION));
  }
  const share = (test: (match: RegExpMatchArray) => boolean) =>
    descriptions.filter(test).length / Math.max(1, descriptions.length);
  summary.plural = share((match) => match[1] === 'a');
  summary.colored = share((match) => match[2] !== undefined);
  summary.located = share((match) => match[4] !== undefined);
  return summary;
}

function firstDescription(instr: InstrData): ObjDescData {
  if ('a' in instr) return firstDescription(instr.a);
  return 'move' in instr ? instr.move : instr.desc;
}

/** Total variation distance between two frequency tables. */
function distance(a: Map<string, number>, b: Map<string, number>): number {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].reduce((sum, key) => sum + Math.abs((a.get(key) ?? 0) - (b.get(key) ?? 0)), 0) / 2;
}

/** Means within `relative` of Minigrid's, or within `absolute` for small ones (samples are noisy). */
const close = (ours: number, theirs: number, relative: number, absolute: number) =>
  Math.abs(ours - theirs) <= Math.max(absolute, relative * theirs);

describe.skipIf(!reference.run)("generator: level distributions against Minigrid v2.3.1's", () => {
  const minigrid = new Map<string, LevelState[]>();
  beforeAll(async () => {
    if (!referenceInstalled()) {
      throw new Error(
        `CI is set but the reference is missing at ${referenceVenv}: run ${referenceSetupCommand}`,
      );
    }
    const episodes = await driveMinigrid(
      GENERATED_LEVELS.flatMap((level) =>
        Array.from({ length: LEVELS_PER_FAMILY }, (_, k) => ({
          id: level,
          level,
          seed: MINIGRID_SEEDS + k,
          actions: [],
        })),
      ),
    );
    for (const episode of episodes) {
      const levels = minigrid.get(episode.id) ?? [];
      levels.push(parseLevelState(episode.start, episode.id));
      minigrid.set(episode.id, levels);
    }
  }, 300_000);

  it('makes every family with the grid size, objects, doors, locked doors, step limits and mission wordings of Minigrid', () => {
    const rows: string[] = [];
    const mismatches: string[] = [];
    for (const name of GENERATED_LEVELS) {
      const ours = summarize(
        Array.from({ length: LEVELS_PER_FAMILY }, (_, seed) => generateLevel(name, seed)),
      );
      const theirs = summarize(minigrid.get(name)!);
      const structures = distance(ours.structures, theirs.structures);
      const pair = (key: Exclude<keyof Summary, 'sizes' | 'structures'>, digits = 2) =>
        `${ours[key].toFixed(digits)}/${theirs[key].toFixed(digits)}`;
      rows.push(
        [
          name.padEnd(30),
          [...ours.sizes].join(',').padEnd(5),
          `objects ${pair('objects')}`,
          `doors ${pair('doors')}`,
          `locked ${pair('lockedDoors')}`,
          `max_steps ${pair('maxSteps', 0)}`,
          `distance ${pair('distance', 1)}`,
          `"a" ${pair('plural')}`,
          `colour ${pair('colored')}`,
          `location ${pair('located')}`,
          `sentence TVD ${structures.toFixed(2)}`,
        ].join('  '),
      );
      const problems = [
        [...ours.sizes].join() !== [...theirs.sizes].join() && 'grid size',
        !close(ours.objects, theirs.objects, 0.1, 0.5) && 'objects',
        !close(ours.doors, theirs.doors, 0.1, 0.5) && 'doors',
        !close(ours.lockedDoors, theirs.lockedDoors, 0.1, 0.3) && 'locked doors',
        !close(ours.maxSteps, theirs.maxSteps, 0.15, 0) && 'max_steps',
        !close(ours.distance, theirs.distance, 0.15, 0.5) && 'distance to the object',
        !close(ours.plural, theirs.plural, 0, 0.15) && '"a" or "the"',
        !close(ours.colored, theirs.colored, 0, 0.15) && 'colours named',
        !close(ours.located, theirs.located, 0, 0.15) && 'locations named',
        structures > 0.2 && 'sentence structures',
      ].filter((problem) => problem !== false);
      if (problems.length > 0) mismatches.push(`${name}: ${problems.join(', ')}`);
    }
    console.log(
      `babyai generator against Minigrid, ${LEVELS_PER_FAMILY} levels each (ours/theirs):\n${rows.join('\n')}`,
    );
    expect(mismatches).toEqual([]);
  });
});
