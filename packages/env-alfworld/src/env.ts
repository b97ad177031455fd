// The ALFWorld TextEnv: plays generated tasks (`gen/<floorPlan>/<trial>`) or real game files, with
// ALFWorld's observation text, admissible commands, `won`, and the step limit reported as truncated.

import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import {
  type CopyableEnv,
  EnvError,
  type EnvInfo,
  NotFoundError,
  parseOrThrow,
  type ResetOptions,
  resetOptionsSchema,
  type StepCheck,
  type StepChecks,
  type StepResult,
  stepEpisode,
} from '@pilotrl/core';
import { z } from 'zod';
import { GameEngine } from './engine';
import { type CachedGame, sharedGameCache } from './game-cache';
import { compileScene } from './game-file';
import { generateScene } from './generator';
import { loadGame } from './loaders';
import { cannotCheckAlfworldStep, checkAlfworldStep } from './step-checks';
import { generatedTask, generatedTaskId, generatedTaskOfId } from './task-source';

export const alfworldEnvConfigSchema = z.strictObject({
  /** Steps (valid or not) after which an unfinished episode is truncated; ALFWorld uses 50. */
  maxSteps: z.number().int().positive().default(50),
  /** Grammar dialect of generated tasks and of problem files: `legacy` (json_2.1.1) or `current` (2.1.2+). */
  dialect: z.enum(['legacy', 'current']).default('legacy'),
  /**
   * Root of real ALFWorld data: task ids that are not `gen/...` name a trial under it (a relative
   * path such as `valid_seen/pick_and_place_simple-.../trial_...`). Ids never reach outside it; without
   * it, only generated tasks are played.
   */
  dataDir: z.string().optional(),
  /** Generated split used when `reset` gets only a seed (the seed is the task index). */
  split: z.enum(['train', 'valid_seen', 'valid_unseen']).default('train'),
  /**
   * Compiled games kept in memory (least recently used dropped first), shared by every env of the
   * process configured with the same size; each episode still plays on its own engine. 0 compiles
   * the game at every reset.
   */
  cacheSize: z.number().int().nonnegative().default(64),
});
export type AlfworldEnvConfig = z.input<typeof alfworldEnvConfigSchema>;

interface Episode {
  readonly engine: GameEngine;
  readonly taskId: string;
  readonly task: string;
  readonly taskType: string | undefined;
  steps: number;
  last: StepResult;
}

export const ALFWORLD_ENV_ID = 'alfworld';

export class AlfworldEnv implements CopyableEnv, StepChecks {
  readonly envId = ALFWORLD_ENV_ID;
  private readonly config: z.output<typeof alfworldEnvConfigSchema>;
  private episode: Episode | undefined;

  constructor(config: AlfworldEnvConfig = {}) {
    this.config = parseOrThrow(alfworldEnvConfigSchema, config, 'alfworld env config');
  }

  async reset(options: ResetOptions): Promise<StepResult> {
    const { seed, taskId: requested } = parseOrThrow(resetOptionsSchema, options, 'reset options');
    const taskId =
      requested ??
      (() => {
        const { floorPlan, trial } = generatedTask(this.config.split, seed);
        return generatedTaskId(floorPlan, trial);
      })();
    const loaded = this.load(taskId);
    const engine = new GameEngine(loaded.game);
    const observation = engine.reset();
    const won = engine.won();
    const last = this.result(observation, engine, won, true, false, taskId, loaded);
    this.episode = {
      engine,
      taskId,
      task: loaded.task,
      taskType: loaded.taskType,
      steps: 0,
      last,
    };
    return last;
  }

  async step(action: string): Promise<StepResult> {
    return stepEpisode(ALFWORLD_ENV_ID, this.episode, action, (episode, command) => {
      const { feedback, valid } = episode.engine.step(command);
      const won = episode.engine.won();
      const truncated = !won && episode.steps >= this.config.maxSteps;
      return this.result(feedback, episode.engine, won, valid, truncated, episode.taskId, episode);
    });
  }

  /** An independent env in this env's state (see `StateCopies`): the same task on a clone of the engine. */
  async copy(): Promise<AlfworldEnv> {
    const episode = this.episode;
    if (episode === undefined) {
      throw new EnvError(`${ALFWORLD_ENV_ID}: copy() was called before reset(); call reset({ seed }) first.`);
    }
    const copy = new AlfworldEnv(this.config);
    copy.episode = { ...episode, engine: episode.engine.clone() };
    return copy;
  }

  cannotCheckStep(step: string): string | undefined {
    return cannotCheckAlfworldStep(step);
  }

  /** Checks a plan step against the game state (see step-checks.ts); needs a `reset` first. */
  checkStep(step: string): StepCheck {
    if (this.episode === undefined) {
      throw new EnvError(
        `${ALFWORLD_ENV_ID}: checkStep() was called before reset(); call reset({ seed }) first.`,
      );
    }
    return checkAlfworldStep(this.episode.engine, step);
  }

  async close(): Promise<void> {
    this.episode = undefined;
  }

  private result(
    observation: string,
    engine: GameEngine,
    won: boolean,
    valid: boolean,
    truncated: boolean,
    taskId: string,
    task: { task: string; taskType: string | undefined },
  ): StepResult {
    const info: EnvInfo = { won, valid, task: task.task, taskId };
    if (task.taskType !== undefined) info.taskType = task.taskType;
    return {
      observation,
      admissibleActions: [...engine.admissibleCommands()],
      reward: won ? 1 : 0,
      terminated: won,
      truncated,
      info,
    };
  }

  /** The task's compiled game, keyed by all it depends on: the dialect and the id or trial path. */
  private load(taskId: string): CachedGame {
    const { cacheSize, dataDir, dialect } = this.config;
    const cache = sharedGameCache(cacheSize);
    const generated = generatedTaskOfId(taskId);
    if (generated !== undefined) {
      return cache.get(`${dialect} ${taskId}`, () => {
        const scene = generateScene(generated);
        return { game: compileScene(scene, dialect), task: scene.task.sentence, taskType: scene.task.type };
      });
    }
    const path = trialPath(dataDir, taskId);
    return cache.get(`${dialect} ${path}`, () => {
      const loaded = loadGame(path, { dialect });
      return { game: loaded.game, task: loaded.task, taskType: loaded.taskType };
    });
  }
}

/**
 * Where the trial `taskId` lies under `dataDir`, or `NotFoundError`: a task id is an id, never a path
 * of the caller's choosing. Refused: any id without a data directory, an absolute path, a `..` or a
 * symbolic link that leads outside the directory, and a NUL byte.
 */
export function trialPath(dataDir: string | undefined, taskId: string): string {
  const shown = JSON.stringify(taskId.length > 80 ? `${taskId.slice(0, 80)}…` : taskId);
  if (dataDir === undefined) {
    throw new NotFoundError(
      `unknown ALFWorld task id ${shown}: generated tasks are gen/<floorPlan>/<trial>; real trials need the env's dataDir`,
    );
  }
  const outside = () =>
    new NotFoundError(
      `unknown ALFWorld task id ${shown}: a trial id is a relative path inside the data directory`,
    );
  if (taskId.includes('\0') || isAbsolute(taskId)) throw outside();
  const within = (root: string, path: string) => {
    const rest = relative(root, path);
    return rest !== '' && !rest.startsWith('..') && !isAbsolute(rest);
  };
  const root = resolve(dataDir);
  const path = resolve(root, taskId);
  if (!within(root, path)) throw outside();
  if (!existsSync(path))
    throw new NotFoundError(`unknown ALFWorld task id ${shown}: no such trial in the data directory`);
  if (!within(realpathSync(root), realpathSync(path))) throw outside();
  return path;
}

/** Creates an ALFWorld env; `config` is validated (see `alfworldEnvConfigSchema`). */
export function createAlfworldEnv(config?: unknown): AlfworldEnv {
  return new AlfworldEnv((config ?? {}) as AlfworldEnvConfig);
}
