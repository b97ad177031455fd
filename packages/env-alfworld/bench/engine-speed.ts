// Steps per second of the native engine on generated scenes, with the admissible command list
// and `won` computed after every step (random admissible actions, 50-step episodes), one core;
// the cost of a state copy (`AlfworldEnv.copy()`) part-way through an episode; and env resets per
// CPU-second on a repeated task set with the shared compiled-game cache and without it.
import { createRng } from '@pilotrl/core';
import {
  AlfworldEnv,
  alfworldEnvConfigSchema,
  compileScene,
  createAlfworldEnv,
  GameEngine,
  generatedTask,
  generatedTaskId,
  generateScene,
} from '../src/index';

const scenes = 24;
const episodesPerScene = 20;
const engines = Array.from({ length: scenes }, (_, i) => {
  const { floorPlan, trial } = generatedTask(i % 2 === 0 ? 'train' : 'valid_unseen', i);
  return new GameEngine(
    compileScene(generateScene({ floorPlan, trial }), i % 3 === 0 ? 'current' : 'legacy'),
  );
});

const compileStart = performance.now();
for (let i = 0; i < scenes; i++) {
  const { floorPlan, trial } = generatedTask('train', 1000 + i);
  compileScene(generateScene({ floorPlan, trial }), 'legacy');
}
const compileMs = (performance.now() - compileStart) / scenes;

function run(): { steps: number; seconds: number } {
  const rng = createRng(1);
  let steps = 0;
  const start = performance.now();
  for (const engine of engines) {
    for (let episode = 0; episode < episodesPerScene; episode++) {
      engine.reset();
      let commands = engine.admissibleCommands();
      for (let t = 0; t < 50; t++) {
        engine.step(rng.pick(commands));
        commands = engine.admissibleCommands();
        steps++;
        if (engine.won()) break;
      }
    }
  }
  return { steps, seconds: (performance.now() - start) / 1000 };
}

run();
const { steps, seconds } = run();
console.log(
  `engine: ${steps} steps in ${seconds.toFixed(2)} s = ${Math.round(steps / seconds)} steps/s (admissible commands and won every step)`,
);
console.log(`compile: ${compileMs.toFixed(1)} ms per generated scene (parse + ground + index)`);

/** Mean ms per `copy()` of an env that has played `stepsBeforeCopy` random admissible commands. */
async function copyMs(stepsBeforeCopy: number): Promise<number> {
  const copiesPerTask = 20;
  const rng = createRng(2);
  let total = 0;
  for (let i = 0; i < scenes; i++) {
    const { floorPlan, trial } = generatedTask('train', i);
    const env = createAlfworldEnv();
    let result = await env.reset({ seed: i, taskId: generatedTaskId(floorPlan, trial) });
    for (let t = 0; t < stepsBeforeCopy && !result.terminated; t++) {
      result = await env.step(rng.pick(result.admissibleActions));
    }
    const start = performance.now();
    for (let c = 0; c < copiesPerTask; c++) await env.copy();
    total += performance.now() - start;
  }
  return total / (scenes * copiesPerTask);
}

await copyMs(10);
const copyFigures: string[] = [];
for (const steps of [0, 10, 30]) copyFigures.push(`${(await copyMs(steps)).toFixed(3)} ms at step ${steps}`);
console.log(`copy: ${copyFigures.join(', ')} (AlfworldEnv.copy(), mean over ${scenes} generated tasks)`);

/**
 * CPU-ms per reset of `envsPerTask` envs resetting in turn to each of `taskIds` (a GRPO group or a
 * vector env on a repeated task set), with `cacheSize` (0: the game is compiled at every reset).
 */
async function resetCpuMs(
  cacheSize: number,
  taskIds: readonly string[],
  envsPerTask: number,
): Promise<number> {
  const envs = Array.from({ length: envsPerTask }, () => new AlfworldEnv({ cacheSize }));
  const start = process.cpuUsage();
  for (const taskId of taskIds) for (const env of envs) await env.reset({ seed: 0, taskId });
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000 / (taskIds.length * envsPerTask);
}

const repeatedTasks = Array.from({ length: 8 }, (_, i) => {
  const { floorPlan, trial } = generatedTask('valid_unseen', i);
  return generatedTaskId(floorPlan, trial);
});
const envsPerTask = 4;
const defaultCacheSize = alfworldEnvConfigSchema.parse({}).cacheSize;
await resetCpuMs(defaultCacheSize, repeatedTasks, 1); // fills the cache: the task set is repeated
const resetMs = { uncached: 0, cached: 0 };
const rounds = 3;
for (let round = 0; round < rounds; round++) {
  resetMs.uncached += (await resetCpuMs(0, repeatedTasks, envsPerTask)) / rounds;
  resetMs.cached += (await resetCpuMs(defaultCacheSize, repeatedTasks, envsPerTask)) / rounds;
}
console.log(
  `reset: ${(1000 / resetMs.cached).toFixed(0)} resets per CPU-second (${resetMs.cached.toFixed(2)} CPU-ms each) from the shared cache (cacheSize ${defaultCacheSize}) against ${(1000 / resetMs.uncached).toFixed(1)} (${resetMs.uncached.toFixed(1)} CPU-ms) compiling at every reset (cacheSize 0): ${(resetMs.uncached / resetMs.cached).toFixed(0)}x, ${envsPerTask} envs on each of ${repeatedTasks.length} tasks, ${rounds} rounds interleaved`,
);
