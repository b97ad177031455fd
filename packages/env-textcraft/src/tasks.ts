// TextCraft's task source: AgentGym `data_idx` values per split over a recipe world, plus four
// unbounded splits of generated crafting trees (`generated_depth_1` … `_4`), each task a fresh
// small world whose goal has exactly that depth. The oracle crafts every goal.
import { NotFoundError, type OracleSolution, type TaskRef, type TaskSource, taskRange } from '@pilotrl/core';
import { textcraftTask } from './env';
import { solve } from './oracle';
import { textcraftPlanOf } from './plan-steps';
import { GENERATED_SPLITS, resolveSetup, SPLITS, TEXTCRAFT_ENV_ID, type WorldOptions } from './setup';
import { itemIdToText } from './world';

export type TextcraftSplit = (typeof SPLITS)[number] | (typeof GENERATED_SPLITS)[number];
export type TextcraftTaskSource = TaskSource & { oracle(task: TaskRef): Promise<OracleSolution> };

const allSplits: readonly string[] = [...SPLITS, ...GENERATED_SPLITS];

/** A task source over the world `options` describe (the built-in world by default). */
export function createTextcraftTasks(options?: WorldOptions): TextcraftTaskSource {
  const setup = resolveSetup(options);
  const check = (split: string) => {
    if (!allSplits.includes(split)) {
      throw new NotFoundError(`textcraft: unknown split "${split}"; choose one of ${allSplits.join(', ')}`);
    }
  };
  return {
    envId: TEXTCRAFT_ENV_ID,
    splits: () => allSplits,
    count(split) {
      check(split);
      return (GENERATED_SPLITS as readonly string[]).includes(split)
        ? 'unbounded'
        : setup.splits[split as (typeof SPLITS)[number]].length;
    },
    async tasks(split, range = {}) {
      check(split);
      const { start, end } = taskRange(TEXTCRAFT_ENV_ID, range, this.count(split));
      const tasks: TaskRef[] = [];
      for (let index = start; index < end; index++) {
        const taskId = `${split}-${index}`;
        const start = setup.start(0, taskId);
        tasks.push({
          taskId,
          split,
          seed: start.dataIdx ?? index,
          taskType: `depth-${start.world.minDepth(start.goal)}`,
          description: textcraftTask(itemIdToText(start.goal)),
        });
      }
      return tasks;
    },
    async oracle(task) {
      const actions = solve(setup.start(task.seed, task.taskId).game);
      return { actions, plan: textcraftPlanOf(actions) };
    },
  };
}

/** The built-in world's tasks. */
export const textcraftTasks: TextcraftTaskSource = createTextcraftTasks();
