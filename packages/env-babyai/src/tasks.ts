// BabyAI's task source: the shipped start states (Minigrid's own, see splits.ts) by split, task ids
// `<split>-<index>` or AgentGym item ids `babyai_<data index>`, and the oracle.
import { NotFoundError, type OracleSolution, type TaskRef, type TaskSource, taskRange } from '@pilotrl/core';
import { SHIPPED_LEVEL_LINES } from './data/levels.generated';
import { goalOf, type LevelState, parseLevelState } from './level';
import { solveLevel } from './oracle';
import { AGENTGYM_LEVELS, BABYAI_SPLIT_PLAN, type BabyaiSplit } from './splits';

export const BABYAI_ENV_ID = 'babyai';

/** A shipped start state with its AgentGym data index. */
export interface BabyaiTask {
  readonly dataIdx: number;
  readonly level: LevelState;
}

let shipped: Map<number, LevelState> | undefined;
function shippedLevels(): Map<number, LevelState> {
  shipped ??= new Map(
    SHIPPED_LEVEL_LINES.map((line) => {
      const { data_idx, ...state } = JSON.parse(line) as { data_idx: number };
      return [data_idx, parseLevelState(state, `shipped level ${data_idx}`)];
    }),
  );
  return shipped;
}

const splitNames = Object.keys(BABYAI_SPLIT_PLAN) as BabyaiSplit[];

/** Every reset looks its task up here, so each split's list is made once. */
const splitIndices = new Map<BabyaiSplit, readonly number[]>();
function dataIndicesOf(split: string): readonly number[] {
  if (!Object.hasOwn(BABYAI_SPLIT_PLAN, split)) {
    throw new NotFoundError(`babyai: unknown split "${split}"; choose one of ${splitNames.join(', ')}`);
  }
  const name = split as BabyaiSplit;
  let indices = splitIndices.get(name);
  if (indices === undefined) {
    const plan = BABYAI_SPLIT_PLAN[name];
    indices = plan.levels.flatMap((level) => plan.seeds.map((seed) => seed * 40 + level - 1));
    splitIndices.set(name, indices);
  }
  return indices;
}

/** Tasks in a split. */
export const babyaiSplitSize = (split: string) => dataIndicesOf(split).length;

/** The AgentGym data index of a task id (`train-3`, `valid_unseen-0` or `babyai_123`). */
export function babyaiDataIndexOf(taskId: string): number {
  const item = /^babyai_(0|[1-9]\d{0,6})$/.exec(taskId);
  if (item !== null) {
    const dataIdx = Number(item[1]);
    if (shippedLevels().has(dataIdx)) return dataIdx;
    throw new NotFoundError(
      `babyai: item ${taskId} (AgentGym level ${AGENTGYM_LEVELS[dataIdx % 40]}, seed ${Math.floor(dataIdx / 40)}) is not shipped; ` +
        'play its start state with createBabyaiEnv({ levels }) (levels from parseLevelFile), or pick a task of a split',
    );
  }
  const match = /^(train|valid_seen|valid_unseen)-(0|[1-9]\d{0,6})$/.exec(taskId);
  const dataIdx = match === null ? undefined : dataIndicesOf(match[1]!)[Number(match[2])];
  if (dataIdx === undefined) {
    const sizes = splitNames.map((split) => `${split} (${babyaiSplitSize(split)})`).join(', ');
    throw new NotFoundError(
      `babyai: no task "${taskId}"; task ids are "<split>-<index>" with an index below the split's size: ${sizes}, or "babyai_<data index>" of one of them`,
    );
  }
  return dataIdx;
}

/** The shipped start state of AgentGym data index `dataIdx`. */
export function babyaiLevel(dataIdx: number): LevelState {
  const level = shippedLevels().get(dataIdx);
  if (level === undefined) {
    throw new NotFoundError(`babyai: data index ${dataIdx} is not shipped; use a task of a split`);
  }
  return level;
}

export const babyaiTasks: TaskSource & { oracle(task: TaskRef): Promise<OracleSolution> } = {
  envId: BABYAI_ENV_ID,
  splits: () => splitNames,
  count: (split) => babyaiSplitSize(split),
  async tasks(split, range = {}) {
    const indices = dataIndicesOf(split);
    const { start, end } = taskRange(BABYAI_ENV_ID, range, indices.length);
    return indices.slice(start, end).map((dataIdx, k) => ({
      taskId: `${split}-${start + k}`,
      split,
      seed: dataIdx,
      description: goalOf(babyaiLevel(dataIdx).mission),
    }));
  },
  /** The oracle's commands; its plan is the same commands (each macro command is one step). */
  async oracle(task) {
    const actions = solveLevel(babyaiLevel(babyaiDataIndexOf(task.taskId)));
    return { actions, plan: [...actions] };
  },
};
