// BabyAI's task source: the shipped start states (Minigrid's own, see splits.ts) by split, task ids
// `<split>-<index>` or AgentGym item ids `babyai_<data index>`; the unbounded split `generated` of
// start states from our generator (generator.ts); and the oracle.
import {
  NotFoundError,
  type OracleSolution,
  type TaskRef,
  type TaskSource,
  taskRange,
  UnsolvableTaskError,
} from '@pilotrl/core';
import type { BabyaiCommands } from './agentgym';
import { SHIPPED_LEVEL_LINES } from './data/levels.generated';
import { GENERATED_LEVELS, generateLevel } from './generator';
import { goalOf, type LevelState, parseLevelState } from './level';
import { solveLevel, solveLevelInPrimitives } from './oracle';
import { babyaiPlanOf } from './plan-steps';
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

/** The unbounded split: task `generated-<n>` plays `GENERATED_LEVELS[n mod L]` with generator seed `floor(n / L)`. */
export const GENERATED_SPLIT = 'generated';

const shippedSplitNames = Object.keys(BABYAI_SPLIT_PLAN) as BabyaiSplit[];
const splitNames: readonly string[] = [...shippedSplitNames, GENERATED_SPLIT];

/** Every reset looks its task up here, so each split's list is made once. */
const splitIndices = new Map<BabyaiSplit, readonly number[]>();
function dataIndicesOf(split: string): readonly number[] {
  if (split === GENERATED_SPLIT) {
    throw new NotFoundError(
      `babyai: split "${GENERATED_SPLIT}" is unbounded and its tasks have no data index`,
    );
  }
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

/** Tasks in a split of shipped start states (`generated` has no end). */
export const babyaiSplitSize = (split: string) => dataIndicesOf(split).length;

/** The level family and generator seed of task `generated-<index>`. */
export function generatedTaskOf(index: number): { levelName: string; seed: number } {
  return {
    levelName: GENERATED_LEVELS[index % GENERATED_LEVELS.length]!,
    seed: Math.floor(index / GENERATED_LEVELS.length),
  };
}

function generatedIndexOf(taskId: string): number | undefined {
  const match = /^generated-(0|[1-9]\d{0,15})$/.exec(taskId);
  const index = match === null ? undefined : Number(match[1]);
  return index !== undefined && Number.isSafeInteger(index) ? index : undefined;
}

const generatedLevel = (index: number) => {
  const { levelName, seed } = generatedTaskOf(index);
  return generateLevel(levelName, seed);
};

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
    if (generatedIndexOf(taskId) !== undefined) {
      throw new NotFoundError(
        `babyai: ${taskId} is generated and has no AgentGym data index; use babyaiTaskOf`,
      );
    }
    const sizes = shippedSplitNames.map((split) => `${split} (${babyaiSplitSize(split)})`).join(', ');
    throw new NotFoundError(
      `babyai: no task "${taskId}"; task ids are "<split>-<index>" with an index below the split's size: ${sizes}, ${GENERATED_SPLIT} (unbounded), or "babyai_<data index>" of a shipped one`,
    );
  }
  return dataIdx;
}

/**
 * The start state of a task id (shipped: `train-3`, `babyai_123`; generated: `generated-5`), with
 * its AgentGym data index when it is shipped.
 */
export function babyaiTaskOf(taskId: string): { level: LevelState; dataIdx: number | undefined } {
  const index = generatedIndexOf(taskId);
  if (index !== undefined) return { level: generatedLevel(index), dataIdx: undefined };
  const dataIdx = babyaiDataIndexOf(taskId);
  return { level: babyaiLevel(dataIdx), dataIdx };
}

/** A task's type: its level without Minigrid's prefix and version (`BabyAI-GoToRedBall-v0` is `GoToRedBall`). */
const levelName = (level: LevelState) => level.level.replace(/^BabyAI-/, '').replace(/-v\d+$/, '');

/** The shipped start state of AgentGym data index `dataIdx`. */
export function babyaiLevel(dataIdx: number): LevelState {
  const level = shippedLevels().get(dataIdx);
  if (level === undefined) {
    throw new NotFoundError(`babyai: data index ${dataIdx} is not shipped; use a task of a split`);
  }
  return level;
}

export type BabyaiTaskSource = TaskSource & { oracle(task: TaskRef): Promise<OracleSolution> };

/**
 * The task source of an env with these options: the oracle plays the env's form of the commands
 * (`commands`), within its step limit (`maxSteps`; AgentGym's 20 rounds for AgentGym's commands,
 * the level's `max_steps` for primitives).
 */
export function createBabyaiTasks(
  options: { commands?: BabyaiCommands; maxSteps?: number } = {},
): BabyaiTaskSource {
  const primitive = options.commands === 'primitive';
  return {
    envId: BABYAI_ENV_ID,
    splits: () => splitNames,
    count: (split) => (split === GENERATED_SPLIT ? 'unbounded' : babyaiSplitSize(split)),
    async tasks(split, range = {}) {
      if (split === GENERATED_SPLIT) {
        const { start, end } = taskRange(BABYAI_ENV_ID, range, 'unbounded');
        return Array.from({ length: end - start }, (_, k) => ({
          taskId: `${split}-${start + k}`,
          split,
          seed: start + k,
          taskType: levelName(generatedLevel(start + k)),
          description: goalOf(generatedLevel(start + k).mission),
        }));
      }
      const indices = dataIndicesOf(split);
      const { start, end } = taskRange(BABYAI_ENV_ID, range, indices.length);
      return indices.slice(start, end).map((dataIdx, k) => ({
        taskId: `${split}-${start + k}`,
        split,
        seed: dataIdx,
        taskType: levelName(babyaiLevel(dataIdx)),
        description: goalOf(babyaiLevel(dataIdx).mission),
      }));
    },
    /**
     * The oracle's commands, and its plan in the plan-step vocabulary (`babyaiPlanOf`); an
     * `UnsolvableTaskError` where it finds no win within AgentGym's 20 commands.
     */
    async oracle(task) {
      const { level } = babyaiTaskOf(task.taskId);
      const limit = options.maxSteps ?? (primitive ? level.max_steps : 20);
      const actions = primitive ? solveLevelInPrimitives(level, limit) : solveLevel(level, limit);
      if (actions.length === 0) {
        throw new UnsolvableTaskError(
          `babyai: the oracle finds no win of "${task.taskId}" within ${limit} ${primitive ? 'primitive ' : ''}commands`,
        );
      }
      return { actions, plan: babyaiPlanOf(actions) };
    },
  };
}

/** The shipped tasks, with the oracle of AgentGym's commands. */
export const babyaiTasks: BabyaiTaskSource = createBabyaiTasks();
