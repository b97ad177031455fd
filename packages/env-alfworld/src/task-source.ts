// Task sources: generated scenes (unbounded train / valid_seen / valid_unseen splits, where unseen
// uses floor plans never used in train) and a directory of real ALFWorld games laid out as
// `json_2.1.1/{train,valid_seen,valid_unseen}/<task>/<trial>/`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  InvalidArgumentError,
  NotFoundError,
  type OracleSolution,
  type TaskRef,
  type TaskSource,
  taskRange,
} from '@pilotrl/core';
import { compileScene, type Dialect } from './game-file';
import { generateScene, type Scene, seenFloorPlans } from './generator';
import { loadGame } from './loaders';
import { solveGame } from './oracle';
import { unseenFloorPlans } from './vocabulary';

export const generatedSplits = ['train', 'valid_seen', 'valid_unseen'] as const;
export type GeneratedSplit = (typeof generatedSplits)[number];

/** valid_seen trials are drawn from a seed range that train never reaches. */
const validSeenTrialOffset = 1_000_000_000;

/** The floor plan and trial of the `index`-th task of a generated split. */
export function generatedTask(split: string, index: number): { floorPlan: number; trial: number } {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new InvalidArgumentError(`task index must be a non-negative integer, got ${index}`);
  const seen = seenFloorPlans();
  if (split === 'train') return { floorPlan: seen[index % seen.length]!, trial: index };
  if (split === 'valid_seen')
    return { floorPlan: seen[index % seen.length]!, trial: validSeenTrialOffset + index };
  if (split === 'valid_unseen')
    return { floorPlan: unseenFloorPlans[index % unseenFloorPlans.length]!, trial: index };
  throw new NotFoundError(`unknown split "${split}"; generated splits are ${generatedSplits.join(', ')}`);
}

/** Task ids of generated scenes: `gen/<floorPlan>/<trial>`. */
export function generatedTaskId(floorPlan: number, trial: number): string {
  return `gen/${floorPlan}/${trial}`;
}

/** The floor plan and trial a generated task id names, or undefined when the id is not one. */
export function generatedTaskOfId(taskId: string): { floorPlan: number; trial: number } | undefined {
  const match = /^gen\/(\d+)\/(\d+)$/.exec(taskId);
  if (match === null) return undefined;
  return { floorPlan: Number(match[1]), trial: Number(match[2]) };
}

/** The scene of a generated task id, or undefined when the id is not one. */
export function sceneOfTaskId(taskId: string): Scene | undefined {
  const task = generatedTaskOfId(taskId);
  return task === undefined ? undefined : generateScene(task);
}

export function createGeneratedTaskSource(options: { dialect?: Dialect } = {}): TaskSource {
  const dialect = options.dialect ?? 'legacy';
  return {
    envId: 'alfworld',
    splits: () => generatedSplits,
    count: () => 'unbounded',
    async tasks(split, range) {
      const { start, end } = taskRange('alfworld', range, 'unbounded');
      const refs: TaskRef[] = [];
      for (let index = start; index < end; index++) {
        const { floorPlan, trial } = generatedTask(split, index);
        const scene = generateScene({ floorPlan, trial });
        refs.push({
          taskId: generatedTaskId(floorPlan, trial),
          split,
          seed: index,
          taskType: scene.task.type,
          description: scene.task.sentence,
        });
      }
      return refs;
    },
    async oracle(task): Promise<OracleSolution> {
      const scene = sceneOfTaskId(task.taskId);
      if (scene === undefined)
        throw new NotFoundError(`"${task.taskId}" is not a generated task id (gen/<floorPlan>/<trial>)`);
      return solveGame(compileScene(scene, dialect));
    },
  };
}

const directorySplits = ['train', 'valid_seen', 'valid_unseen'] as const;

/** Trial directories of a data root, per split, sorted, without ALFWorld's skipped kinds. */
function listTrials(root: string): Map<string, string[]> {
  const base = existsSync(join(root, 'json_2.1.1')) ? join(root, 'json_2.1.1') : root;
  const result = new Map<string, string[]>();
  for (const split of directorySplits) {
    const splitDir = join(base, split);
    const trials: string[] = [];
    if (existsSync(splitDir)) {
      for (const task of readdirSync(splitDir).sort()) {
        if (task.includes('movable') || task.includes('Sliced')) continue;
        const taskDir = join(splitDir, task);
        if (!statSync(taskDir).isDirectory()) continue;
        for (const trial of readdirSync(taskDir).sort()) {
          const dir = join(taskDir, trial);
          if (existsSync(join(dir, 'game.tw-pddl')) || existsSync(join(dir, 'initial_state.pddl')))
            trials.push(relative(root, dir));
        }
      }
    }
    result.set(split, trials);
  }
  return result;
}

/** Real ALFWorld games under `root` (the folder holding `json_2.1.1`, or that folder itself). Task ids are paths relative to `root`. */
export function createDirectoryTaskSource(root: string, options: { dialect?: Dialect } = {}): TaskSource {
  if (!existsSync(root)) throw new InvalidArgumentError(`ALFWorld data directory ${root} does not exist`);
  const trials = listTrials(root);
  return {
    envId: 'alfworld',
    splits: () => directorySplits,
    count: (split) => trials.get(split)?.length ?? 0,
    async tasks(split, range) {
      const list = trials.get(split);
      if (list === undefined)
        throw new NotFoundError(`unknown split "${split}"; splits are ${directorySplits.join(', ')}`);
      const { start, end } = taskRange('alfworld', range, list.length);
      return list.slice(start, end).map((taskId, i) => ({
        taskId,
        split,
        seed: start + i,
        taskType: taskId
          .split('/')
          .find((part) => part.includes('-'))
          ?.split('-')[0],
      }));
    },
    async oracle(task) {
      return solveGame(loadGame(join(root, task.taskId), options).game);
    },
  };
}
