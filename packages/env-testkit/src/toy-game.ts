// The engine the three toy envs share: task ids and splits, the reset/step contract, step limits,
// inadmissible actions and the task source. Each toy env only describes its game as a `ToyGame`.
import {
  type CopyableEnv,
  createRng,
  EnvError,
  InvalidArgumentError,
  type OracleSolution,
  parseOrThrow,
  type ResetOptions,
  type Rng,
  resetOptionsSchema,
  type StepResult,
  stepEpisode,
  type TaskRef,
  type TaskSource,
  taskRange,
} from '@pilotrl/core';
import { z } from 'zod';

/** The splits every toy env offers. `valid_unseen` draws from a vocabulary or size range train never uses. */
export const TOY_SPLITS = ['train', 'valid_seen', 'valid_unseen'] as const;
export type ToySplit = (typeof TOY_SPLITS)[number];

/** Number of tasks in each split. */
export const TOY_SPLIT_SIZES: Readonly<Record<ToySplit, number>> = {
  train: 10_000,
  valid_seen: 200,
  valid_unseen: 200,
};

/** What a game's rules say about one admissible action. */
export interface ToyOutcome {
  observation: string;
  /** Set when the action ends the episode. */
  end?: 'won' | 'lost';
}

/** A toy game: layout generation and rules. States are plain mutable objects owned by one episode. */
export interface ToyGame<State> {
  readonly envId: string;
  readonly taskType: string;
  /** Builds the layout of one task; `unseen` selects the held-out vocabulary or sizes. */
  generate(rng: Rng, unseen: boolean): State;
  /** The goal in words. */
  task(state: State): string;
  /** What the agent sees at reset, after the task sentence. */
  describe(state: State): string;
  /** Commands accepted in this state, in a fixed order. */
  admissible(state: State): string[];
  /** Applies an admissible command (exactly as `admissible` spelled it). */
  apply(state: State, action: string): ToyOutcome;
  /** The shortest solution from the initial state. */
  oracle(state: State): OracleSolution;
}

export const toyEnvConfigSchema = z.strictObject({
  /** Steps (valid or not) after which the episode is truncated. */
  maxSteps: z.number().int().positive().default(30),
});
export type ToyEnvConfig = z.input<typeof toyEnvConfigSchema>;

const taskIdPattern = /^(train|valid_seen|valid_unseen)-(\d+)$/;

/** Observation for a command the env does not understand, as ALFWorld words it. */
export const INVALID_ACTION_OBSERVATION = 'Nothing happens.';

function parseTaskId(envId: string, taskId: string): { split: ToySplit; index: number } {
  const match = taskIdPattern.exec(taskId);
  const index = match ? Number(match[2]) : Number.NaN;
  const split = match?.[1] as ToySplit | undefined;
  if (split === undefined || !(index < TOY_SPLIT_SIZES[split])) {
    throw new InvalidArgumentError(
      `${envId}: unknown taskId "${taskId}". Task ids look like "train-12", "valid_seen-3" or ` +
        `"valid_unseen-0", with an index below the split size (${JSON.stringify(TOY_SPLIT_SIZES)}).`,
    );
  }
  return { split, index };
}

function generateTask<State>(game: ToyGame<State>, split: ToySplit, index: number): State {
  return game.generate(createRng(`${game.envId}/${split}/${index}`), split === 'valid_unseen');
}

/** Whitespace and case do not matter in commands; everything else does. */
function normaliseCommand(action: string): string {
  return action.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * A `TextEnv` over a toy game. `reset({ seed })` plays task `train-<seed>`; `reset({ seed, taskId })`
 * plays that task (the seed is then unused: toy games have no randomness after layout).
 * `step` before `reset` throws an `EnvError`; `step` after the episode ended returns
 * `valid: false` with the last `terminated`/`truncated` flags and no admissible actions.
 * `copy()` gives an independent env in the same state (see `StateCopies`).
 */
export function createToyEnv<State>(game: ToyGame<State>, config?: ToyEnvConfig): CopyableEnv {
  const { maxSteps } = parseOrThrow(toyEnvConfigSchema, config ?? {}, `${game.envId} config`);
  return toyEnv(game, maxSteps, undefined);
}

interface ToyEpisode<State> {
  state: State;
  taskId: string;
  task: string;
  steps: number;
  won: boolean;
  last: StepResult;
}

/** The env over `game`, playing `episode` (a copy's) or nothing until `reset`. */
function toyEnv<State>(
  game: ToyGame<State>,
  maxSteps: number,
  started: ToyEpisode<State> | undefined,
): CopyableEnv {
  let episode = started;

  const result = (
    observation: string,
    fields: { reward?: number; terminated?: boolean; truncated?: boolean; valid: boolean },
  ): StepResult => {
    const current = episode!;
    const ended = fields.terminated === true || fields.truncated === true;
    return {
      observation,
      admissibleActions: ended ? [] : game.admissible(current.state),
      reward: fields.reward ?? 0,
      terminated: fields.terminated ?? false,
      truncated: fields.truncated ?? false,
      info: {
        won: current.won,
        valid: fields.valid,
        task: current.task,
        taskId: current.taskId,
        taskType: game.taskType,
        steps: current.steps,
      },
    };
  };

  return {
    envId: game.envId,
    async reset(options: ResetOptions) {
      const { seed, taskId } = parseOrThrow(resetOptionsSchema, options, `${game.envId} reset options`);
      const chosen = taskId ?? `train-${seed % TOY_SPLIT_SIZES.train}`;
      const { split, index } = parseTaskId(game.envId, chosen);
      const state = generateTask(game, split, index);
      const task = game.task(state);
      episode = { state, taskId: chosen, task, steps: 0, won: false, last: undefined as never };
      episode.last = result(`${task}\n${game.describe(state)}`, { valid: true });
      return episode.last;
    },
    async step(action: string) {
      return stepEpisode(game.envId, episode, action, (current, raw) => {
        const command = normaliseCommand(raw);
        const truncated = current.steps >= maxSteps;
        if (!game.admissible(current.state).includes(command)) {
          return result(INVALID_ACTION_OBSERVATION, { valid: false, truncated });
        }
        const outcome = game.apply(current.state, command);
        current.won = outcome.end === 'won';
        const terminated = outcome.end !== undefined;
        return result(outcome.observation, {
          valid: true,
          reward: current.won ? 1 : 0,
          terminated,
          truncated: truncated && !terminated,
        });
      });
    },
    async copy() {
      if (episode === undefined) {
        throw new EnvError(`${game.envId}: copy() was called before reset(); call reset({ seed }) first.`);
      }
      // Game states are plain data (arrays, maps, sets), so a structured clone is independent.
      return toyEnv(game, maxSteps, structuredClone(episode));
    },
    async close() {
      episode = undefined;
    },
  };
}

/** A task source whose oracle always exists. */
export type ToyTaskSource = TaskSource & { oracle(task: TaskRef): Promise<OracleSolution> };

/** The task source of a toy game: fixed, seed-derived tasks in three splits, with an exact oracle. */
export function createToyTaskSource<State>(game: ToyGame<State>): ToyTaskSource {
  const splitOf = (split: string): ToySplit => {
    if (!(TOY_SPLITS as readonly string[]).includes(split)) {
      throw new InvalidArgumentError(
        `${game.envId}: unknown split "${split}"; choose one of ${TOY_SPLITS.join(', ')}`,
      );
    }
    return split as ToySplit;
  };
  return {
    envId: game.envId,
    splits: () => TOY_SPLITS,
    count: (split) => TOY_SPLIT_SIZES[splitOf(split)],
    async tasks(split, range) {
      const known = splitOf(split);
      const { start, end } = taskRange(game.envId, range, TOY_SPLIT_SIZES[known]);
      const refs: TaskRef[] = [];
      for (let index = start; index < end; index++) {
        refs.push({
          taskId: `${known}-${index}`,
          split: known,
          seed: index,
          taskType: game.taskType,
          description: game.task(generateTask(game, known, index)),
        });
      }
      return refs;
    },
    async oracle(task) {
      const { split, index } = parseTaskId(game.envId, task.taskId);
      return game.oracle(generateTask(game, split, index));
    },
  };
}

/** "a, b and c" */
export function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
