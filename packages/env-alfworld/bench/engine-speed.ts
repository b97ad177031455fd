// Steps per second of the native engine on generated scenes, with the admissible command list
// and `won` computed after every step (random admissible actions, 50-step episodes), one core;
// and the cost of a state copy (`AlfworldEnv.copy()`) part-way through an episode.
import { createRng } from '@pilotrl/core';
import {
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
