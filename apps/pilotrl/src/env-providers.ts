// The one env registry: the envs a curriculum can name (`env.id` in a config), each a factory for
// fresh envs plus the task source with its splits and oracle, and what else the env offers (state
// view, hindsight, plan steps, demonstrator). Pre-filled with ALFWorld, BabyAI, Maze, TextCraft, Wordle and
// the testkit's toy envs; an env package registers nothing itself, so a new env is added here.
import {
  createRegistry,
  type Demonstrator,
  type EpisodeViewFactory,
  type HindsightRelabeller,
  type OracleSolution,
  type PlanStepVocabulary,
  type TaskRef,
  type TaskSource,
  type TextEnv,
  UnsolvableTaskError,
} from '@pilotrl/core';
import {
  ALFWORLD_ENV_ID,
  alfworldHindsight,
  alfworldPlanSteps,
  alfworldStateView,
  createAlfworldEnv,
  createAlfworldSearcher,
  createDirectoryTaskSource,
  createGeneratedTaskSource,
} from '@pilotrl/env-alfworld';
import { BABYAI_ENV_ID, babyaiPlanSteps, babyaiTasks, createBabyaiEnv } from '@pilotrl/env-babyai';
import { createMazeEnv, MAZE_ENV_ID, mazePlanSteps, mazeTasks } from '@pilotrl/env-maze';
import { testkitEnvs } from '@pilotrl/env-testkit';
import {
  createTextcraftEnv,
  createTextcraftTasks,
  TEXTCRAFT_ENV_ID,
  textcraftPlanSteps,
  worldOptionsSchema,
} from '@pilotrl/env-textcraft';
import {
  createWordleEnv,
  createWordleTasks,
  WORDLE_ENV_ID,
  wordleTaskConfigSchema,
} from '@pilotrl/env-wordle';

export interface EnvProvider {
  readonly envId: string;
  /** A fresh env; `options` are the config's env options plus `maxSteps`. */
  createEnv(options: Record<string, unknown>): TextEnv;
  readonly tasks: TaskSource;
  /** The env's compact state view (`agent.prompt: view`); envs without one show goal + observation. */
  readonly view?: EpisodeViewFactory;
  /** Names the goal a lost episode reached, for expert iteration's hindsight relabelling. */
  readonly hindsight?: HindsightRelabeller;
  /** The env's plan-step vocabulary (`agent.plan: steps`); it needs `planOf` to give oracle plans in it. */
  readonly planSteps?: PlanStepVocabulary;
  /** Plays oracle solutions from what an agent sees (`sft.demonstrator: searching`). */
  readonly demonstrator?: Demonstrator;
}

export type EnvProviderFactory = (options: Record<string, unknown>) => EnvProvider;

export const envProviders = createRegistry<EnvProviderFactory>('environment');

/**
 * The same task source with its oracle memoised per task: the oracle is a planner (slow on
 * ALFWorld) and a run asks it for the same tasks again (demonstrations, stage-1 plans, judges).
 */
export function withCachedOracle(tasks: TaskSource): TaskSource {
  const oracle = tasks.oracle?.bind(tasks);
  if (oracle === undefined) return tasks;
  const cache = new Map<string, Promise<OracleSolution>>();
  return {
    envId: tasks.envId,
    splits: () => tasks.splits(),
    count: (split) => tasks.count(split),
    tasks: (split, range) => tasks.tasks(split, range),
    oracle(task) {
      const key = `${task.split}/${task.taskId}/${task.seed}`;
      let solution = cache.get(key);
      if (solution === undefined) {
        solution = oracle(task);
        cache.set(key, solution);
        // A task proved unsolvable stays so; any other failure is worth another try.
        solution.catch((error: unknown) => {
          if (!UnsolvableTaskError.isInstance(error)) cache.delete(key);
        });
      }
      return solution;
    },
  };
}

/** The oracle's solution of `task`, or undefined when the oracle proves the task unsolvable. */
export async function oracleSolution(tasks: TaskSource, task: TaskRef): Promise<OracleSolution | undefined> {
  try {
    return await tasks.oracle!(task);
  } catch (error) {
    if (UnsolvableTaskError.isInstance(error)) return undefined;
    throw error;
  }
}

/**
 * ALFWorld: the built-in generator by default; `options.dataDir` plays real ALFWorld games from a
 * data directory instead. `options.dialect` picks the grammar of generated games.
 */
envProviders.register(ALFWORLD_ENV_ID, (options) => {
  const dialect = options.dialect === 'current' ? 'current' : 'legacy';
  const dataDir = typeof options.dataDir === 'string' ? options.dataDir : undefined;
  return {
    envId: ALFWORLD_ENV_ID,
    // Trial ids are relative to the data directory, which the env resolves them under (never outside).
    createEnv: (envOptions) =>
      createAlfworldEnv(dataDir === undefined ? envOptions : { ...envOptions, dataDir }),
    view: alfworldStateView,
    hindsight: alfworldHindsight,
    planSteps: alfworldPlanSteps,
    demonstrator: createAlfworldSearcher(() => createAlfworldEnv({ ...options, maxSteps: 100 })),
    tasks: withCachedOracle(
      dataDir === undefined
        ? createGeneratedTaskSource({ dialect })
        : createDirectoryTaskSource(dataDir, { dialect }),
    ),
  };
});

/** The options among `options` that a task source's schema (one with a `shape`) knows. */
function optionsFor(schema: { shape: object }, options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([key]) => Object.hasOwn(schema.shape, key)));
}

/** BabyAI: AgentGym's text version on Minigrid start states (the package's shipped splits). */
envProviders.register(BABYAI_ENV_ID, () => ({
  envId: BABYAI_ENV_ID,
  createEnv: (options) => createBabyaiEnv(options),
  planSteps: babyaiPlanSteps,
  tasks: withCachedOracle(babyaiTasks),
}));

/** Maze: LMRL-Gym's one layout, its splits the start positions. */
envProviders.register(MAZE_ENV_ID, () => ({
  envId: MAZE_ENV_ID,
  createEnv: (options) => createMazeEnv(options),
  planSteps: mazePlanSteps,
  tasks: mazeTasks,
}));

/** TextCraft: the built-in generated recipe world, or `options.recipesDir` (Minecraft's recipe files). */
envProviders.register(TEXTCRAFT_ENV_ID, (options) => ({
  envId: TEXTCRAFT_ENV_ID,
  createEnv: (envOptions) => createTextcraftEnv(envOptions),
  planSteps: textcraftPlanSteps,
  tasks: withCachedOracle(createTextcraftTasks(optionsFor(worldOptionsSchema, options))),
}));

/** Wordle: LMRL-Gym's game; `options.vocabulary` and `options.secret` pick the word list and the rules. */
envProviders.register(WORDLE_ENV_ID, (options) => ({
  envId: WORDLE_ENV_ID,
  createEnv: (envOptions) => createWordleEnv(envOptions),
  tasks: withCachedOracle(createWordleTasks(optionsFor(wordleTaskConfigSchema, options))),
}));

for (const env of testkitEnvs) {
  envProviders.register(env.envId, () => ({
    envId: env.envId,
    createEnv: (options) => env.create(options as Parameters<typeof env.create>[0]),
    tasks: env.tasks,
  }));
}
