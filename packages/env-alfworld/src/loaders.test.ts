import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ParseError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { GameEngine } from './engine';
import { compileScene, writeGameFile, writeProblem } from './game-file';
import { generateScene, taskDirectoryName } from './generator';
import { detectDialect, loadGame, loadGameFile, loadProblemFile } from './loaders';
import { solveGame } from './oracle';
import { replayFiles } from './replay';
import { createDirectoryTaskSource } from './task-source';

const scene = generateScene({ floorPlan: 424, trial: 2, taskType: 'pick_clean_then_place_in_recep' });
const dir = mkdtempSync(join(tmpdir(), 'alfworld-'));
const trialDir = join(
  dir,
  'json_2.1.1',
  'valid_unseen',
  taskDirectoryName(scene),
  'trial_T20190101_000000_000001',
);
mkdirSync(trialDir, { recursive: true });
const solution = solveGame(compileScene(scene, 'current'));
writeFileSync(
  join(trialDir, 'game.tw-pddl'),
  JSON.stringify(writeGameFile(scene, { dialect: 'current', walkthrough: solution.actions })),
);
const problemOnly = join(
  dir,
  'json_2.1.1',
  'train',
  taskDirectoryName(scene),
  'trial_T20190101_000000_000002',
);
mkdirSync(problemOnly, { recursive: true });
writeFileSync(join(problemOnly, 'initial_state.pddl'), writeProblem(scene));
writeFileSync(
  join(problemOnly, 'traj_data.json'),
  JSON.stringify({
    task_id: 'trial_T20190101_000000_000002',
    task_type: scene.task.type,
    pddl_params: { object_target: scene.task.object, parent_target: scene.task.parent, toggle_target: '' },
  }),
);

const transcript = (engine: GameEngine, actions: readonly string[]) => {
  const out = [engine.reset(), engine.admissibleCommands().join('|')];
  for (const action of actions) out.push(engine.step(action).feedback, engine.admissibleCommands().join('|'));
  return out;
};

/** `alfworld-replay <game> <actions>` from source, as a user runs it. */
const replayCli = (game: string, actions: string) =>
  spawnSync(
    process.execPath,
    [
      '--conditions=@pilotrl/source',
      '--import',
      'tsx',
      join(import.meta.dirname, 'replay-cli.ts'),
      game,
      actions,
    ],
    { encoding: 'utf8' },
  );

describe('loaders', () => {
  it('plays a written game file exactly like the generated scene it came from', () => {
    const loaded = loadGameFile(join(trialDir, 'game.tw-pddl'));
    expect(loaded.dialect).toBe('current');
    expect(loaded.task).toBe(scene.task.sentence);
    expect(loaded.taskType).toBe('pick_clean_then_place_in_recep');
    expect(loaded.walkthrough).toEqual(solution.actions);
    const ours = new GameEngine(compileScene(scene, 'current'));
    const theirs = new GameEngine(loaded.game);
    expect(transcript(theirs, solution.actions)).toEqual(transcript(ours, solution.actions));
    expect(theirs.won()).toBe(true);
  });

  it('plays an initial_state.pddl with its traj_data.json in the chosen dialect', () => {
    const loaded = loadProblemFile(join(problemOnly, 'initial_state.pddl'), { dialect: 'legacy' });
    expect(detectDialect(loaded.game.grammarText)).toBe('legacy');
    expect(['put a clean soapbar in countertop', 'clean some soapbar and put it in countertop']).toContain(
      loaded.task
        .replace(scene.task.object.toLowerCase(), 'soapbar')
        .replace(scene.task.parent.toLowerCase(), 'countertop'),
    );
    const { actions } = solveGame(loaded.game);
    const engine = new GameEngine(loaded.game);
    engine.reset();
    for (const action of actions) engine.step(action);
    expect(engine.won()).toBe(true);
  });

  it('serves a data directory as a task source with ALFWorld splits and an oracle', async () => {
    const source = createDirectoryTaskSource(dir);
    expect(source.count('valid_unseen')).toBe(1);
    expect(source.count('train')).toBe(1);
    const [task] = await source.tasks('valid_unseen');
    expect(task!.taskType).toBe('pick_clean_then_place_in_recep');
    expect((await source.oracle!(task!)).actions).toEqual(solution.actions);
  });

  it('names the file, the line and the problem of a malformed file', () => {
    const bad = join(dir, 'bad.tw-pddl');
    writeFileSync(bad, '{\n  "pddl_domain": "x",\n  "grammar": \n}');
    expect(() => loadGameFile(bad)).toThrow(ParseError);
    expect(() => loadGameFile(bad)).toThrow(/bad\.tw-pddl:4: not valid JSON/);
    // Broken JSON nested past what is read names the line where it passes that depth.
    writeFileSync(bad, `{"pddl_domain":\n${'['.repeat(50_000)}1`);
    expect(() => loadGameFile(bad)).toThrow(/bad\.tw-pddl:2: not valid JSON/);
    const file = writeGameFile(scene, { dialect: 'legacy' });
    const broken = join(dir, 'broken.tw-pddl');
    writeFileSync(
      broken,
      JSON.stringify({
        ...file,
        pddl_problem: file.pddl_problem
          .replace('(:init', '(:init\n(inReceptacle nothing_here')
          .replace(/\)\s*$/, ''),
      }),
    );
    expect(() => loadGameFile(broken)).toThrow(
      /broken\.tw-pddl \(pddl_problem\):\d+: list opened here is never closed/,
    );
    const pddl = join(dir, 'initial_state.pddl');
    writeFileSync(
      pddl,
      '(define (problem p)\n(:domain alfred)\n(:objects a - agent)\n(:init (atLocation a ghost))\n(:goal (and)))',
    );
    writeFileSync(
      join(dir, 'traj_data.json'),
      '{"task_type": "pick_and_place_simple", "pddl_params": {"object_target": "Apple"}}',
    );
    expect(() => loadProblemFile(pddl)).toThrow(/undeclared object "ghost"/);
    expect(() => loadGame(join(dir, 'missing'))).toThrow(/no such file or directory/);
  });
});

describe('alfworld-replay', () => {
  it('prints each observation after a line ---, then whether the game was won', () => {
    const actionsFile = join(dir, 'actions.txt');
    writeFileSync(actionsFile, `${solution.actions.join('\n')}\n`);
    const text = replayFiles(trialDir, actionsFile);
    const parts = text.split('\n---\n');
    expect(parts).toHaveLength(solution.actions.length + 1);
    expect(parts[0]!.startsWith('-= Welcome to TextWorld, ALFRED! =-')).toBe(true);
    expect(text.endsWith('\nwon: true\n')).toBe(true);
    const cli = replayCli(join(trialDir, 'game.tw-pddl'), actionsFile);
    expect(cli.stderr).toBe('');
    expect(cli.stdout).toBe(text);
  });

  it('refuses a game nested 5,000 deep with one line on stderr and exit code 1', () => {
    const file = writeGameFile(scene, { dialect: 'legacy' });
    const deepGoal = `(:goal ${'(and '.repeat(5000)}(holdsany agent1)${')'.repeat(5000)})`;
    const deep = join(dir, 'deep.tw-pddl');
    writeFileSync(
      deep,
      JSON.stringify({ ...file, pddl_problem: file.pddl_problem.replace(/^\(:goal .*$/m, deepGoal) }),
    );
    const actionsFile = join(dir, 'no-actions.txt');
    writeFileSync(actionsFile, '');
    const cli = replayCli(deep, actionsFile);
    expect(cli.status).toBe(1);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toMatch(
      /^alfworld-replay: \S*deep\.tw-pddl \(pddl_problem\):\d+: lists nest 5003 deep; the limit is 64 \(MAX_NESTING\)\n$/,
    );
  });
});
