// The compiled-game cache: envs share compiled games across instances, yet every episode plays on
// its own engine, and an env plays byte for byte as it does when it compiles at every reset.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng, type StepResult } from '@pilotrl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { AlfworldEnv } from './env';
import { type CachedGame, GameCache, sharedGameCache } from './game-cache';
import { compileScene, writeGameFile, writeProblem } from './game-file';
import { generateScene } from './generator';

const scratch = mkdtempSync(join(tmpdir(), 'alfworld-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A data directory holding `trial` as a game file of `scene`, and `problem-trial` as its problem file. */
function dataDirWith(name: string, floorPlan: number, trial: number): string {
  const scene = generateScene({ floorPlan, trial });
  const root = join(scratch, name);
  mkdirSync(join(root, 'trial'), { recursive: true });
  mkdirSync(join(root, 'problem-trial'), { recursive: true });
  writeFileSync(
    join(root, 'trial', 'game.tw-pddl'),
    JSON.stringify(writeGameFile(scene, { dialect: 'legacy' })),
  );
  writeFileSync(join(root, 'problem-trial', 'initial_state.pddl'), writeProblem(scene));
  writeFileSync(
    join(root, 'problem-trial', 'traj_data.json'),
    JSON.stringify({
      task_id: 'problem-trial',
      task_type: scene.task.type,
      pddl_params: { object_target: scene.task.object, parent_target: scene.task.parent, toggle_target: '' },
    }),
  );
  return root;
}

const fakeGame = (task: string): CachedGame => ({
  game: compileScene(generateScene({ floorPlan: 1, trial: 0 }), 'legacy'),
  task,
  taskType: undefined,
});

describe('GameCache', () => {
  it('compiles a key once, keeps the most recently used games, and drops the least recently used', () => {
    const compiled: string[] = [];
    const game = fakeGame('a');
    const cache = new GameCache(2);
    const get = (key: string) =>
      cache.get(key, () => {
        compiled.push(key);
        return { ...game, task: key };
      });
    expect(get('a').task).toBe('a');
    get('b');
    get('a');
    get('c'); // drops b, the least recently used
    get('a');
    get('b');
    expect(compiled).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
  });

  it('keeps nothing at size 0, nor a game whose compile throws', () => {
    const game = fakeGame('a');
    const none = new GameCache(0);
    let compiles = 0;
    for (let i = 0; i < 3; i++)
      none.get('a', () => {
        compiles += 1;
        return game;
      });
    expect(compiles).toBe(3);
    expect(none.size).toBe(0);
    const cache = new GameCache(4);
    expect(() =>
      cache.get('bad', () => {
        throw new Error('no such game');
      }),
    ).toThrow('no such game');
    expect(cache.size).toBe(0);
  });
});

/** Plays `steps` commands drawn by `seed` (some inadmissible), returning every result as JSON. */
async function play(env: AlfworldEnv, taskId: string, seed: number, steps: number): Promise<string[]> {
  const rng = createRng(seed);
  let result: StepResult = await env.reset({ seed: 0, taskId });
  const out = [JSON.stringify(result)];
  for (let t = 0; t < steps && !result.terminated && !result.truncated; t++) {
    const command = rng.float() < 0.1 ? 'jump around' : rng.pick(result.admissibleActions);
    result = await env.step(command);
    out.push(JSON.stringify(result));
  }
  return out;
}

describe('AlfworldEnv with the shared game cache', () => {
  it('envs on one task share its compiled game, and neither moves the other', async () => {
    const taskId = 'gen/10/3';
    const [a, b] = [new AlfworldEnv({ cacheSize: 5 }), new AlfworldEnv({ cacheSize: 5 })];
    const [refA, refB] = [new AlfworldEnv({ cacheSize: 0 }), new AlfworldEnv({ cacheSize: 0 })];
    const rngs = [createRng(1), createRng(2)];
    const last = [await a.reset({ seed: 0, taskId }), await b.reset({ seed: 0, taskId })];
    const refLast = [await refA.reset({ seed: 0, taskId }), await refB.reset({ seed: 0, taskId })];
    expect(sharedGameCache(5).size).toBe(1);
    const envs = [a, b] as const;
    const refs = [refA, refB] as const;
    for (let t = 0; t < 40; t++) {
      // Interleaved, each with its own commands: a step of one must not show in the other.
      for (const side of [0, 1] as const) {
        if (last[side]!.terminated) continue;
        const command = rngs[side]!.pick(last[side]!.admissibleActions);
        last[side] = await envs[side].step(command);
        refLast[side] = await refs[side].step(command);
        expect(last[side]).toEqual(refLast[side]);
      }
    }
    expect(last[0]!.observation === last[1]!.observation && last[0]!.info.won === last[1]!.info.won).toBe(
      false,
    );
    // A third env starting the task now starts where the first two did, not where they stand.
    const fresh = new AlfworldEnv({ cacheSize: 5 });
    expect(await fresh.reset({ seed: 0, taskId })).toEqual(
      await new AlfworldEnv({ cacheSize: 0 }).reset({ seed: 0, taskId }),
    );
    expect(sharedGameCache(5).size).toBe(1);
  });

  it('plays byte for byte as an env that compiles at every reset, over 300 steps of five tasks revisited', async () => {
    const dataDir = dataDirWith('data', 12, 4);
    const tasks = [
      { taskId: 'gen/10/3' },
      { taskId: 'gen/219/7', dialect: 'current' as const },
      { taskId: 'gen/308/1' },
      { taskId: 'trial', dataDir },
      { taskId: 'problem-trial', dataDir, dialect: 'current' as const },
    ];
    let steps = 0;
    for (let round = 0; round < 3; round++) {
      for (const [i, { taskId, ...config }] of tasks.entries()) {
        const seed = 10 * round + i;
        const cached = await play(new AlfworldEnv({ ...config, cacheSize: 6 }), taskId, seed, 20);
        const uncached = await play(new AlfworldEnv({ ...config, cacheSize: 0 }), taskId, seed, 20);
        expect(cached).toEqual(uncached);
        steps += cached.length - 1;
      }
    }
    expect(steps).toBeGreaterThanOrEqual(250);
    expect(sharedGameCache(6).size).toBe(tasks.length);
  });

  it('keeps games apart by dialect and by data directory', async () => {
    const legacy = await new AlfworldEnv({ cacheSize: 7 }).reset({ seed: 0, taskId: 'gen/10/3' });
    const current = await new AlfworldEnv({ cacheSize: 7, dialect: 'current' }).reset({
      seed: 0,
      taskId: 'gen/10/3',
    });
    expect(legacy.admissibleActions).not.toContain('help');
    expect(current.admissibleActions).toContain('help');
    const [first, second] = [dataDirWith('first', 21, 1), dataDirWith('second', 305, 2)];
    const fromFirst = await new AlfworldEnv({ cacheSize: 7, dataDir: first }).reset({
      seed: 0,
      taskId: 'trial',
    });
    const fromSecond = await new AlfworldEnv({ cacheSize: 7, dataDir: second }).reset({
      seed: 0,
      taskId: 'trial',
    });
    expect(fromFirst.observation).not.toBe(fromSecond.observation);
    expect(fromSecond).toEqual(
      await new AlfworldEnv({ cacheSize: 0, dataDir: second }).reset({ seed: 0, taskId: 'trial' }),
    );
    expect(sharedGameCache(7).size).toBe(4);
  });
});
