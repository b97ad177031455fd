// The Maze TextEnv: LMRL-Gym's MazeEnv as AgentGym's server runs it: exact commands, the description
// of the new cell after each step, `Success\n` (reward 1) on the goal, `Failure\n` (reward -1) past
// LMRL-Gym's 50 steps, and PilotRL's own step limit reported as truncated.
import {
  type CopyableEnv,
  EnvError,
  InvalidArgumentError,
  parseOrThrow,
  type ResetOptions,
  resetOptionsSchema,
  type StepResult,
  stepEpisode,
} from '@pilotrl/core';
import { z } from 'zod';
import { MAZE_FIRST_OBSERVATION_PROMPT } from './data/client-prompts';
import { type Cell, describeCell, GOAL, isMazeAction, MAZE_ACTIONS, move, sameCell } from './maze';
import { MAZE_ENV_ID, MAZE_TASK, mazeGameOf, startOfGame } from './tasks';

/** LMRL-Gym's `max_steps` as AgentGym sets it: the step after 50 moves off the goal fails. */
export const MAZE_ENGINE_STEPS = 50;
/** The rounds AgentGym's trainer plays Maze (`lmrlgym_maze`), the `agenttraj` dialect's default step limit. */
export const AGENTGYM_MAZE_ROUNDS = 15;

export const mazeConfigSchema = z.strictObject({
  /**
   * Steps (valid or not) after which an unfinished episode is truncated. Default: in the `agentgym`
   * dialect none, so an episode ends as the original's does (the step after 50 moves off the goal
   * answers `Failure\n`, at most 51 steps); in `agenttraj`, 15, the rounds AgentGym's trainer played.
   */
  maxSteps: z.number().int().positive().optional(),
  /**
   * `agentgym`: the released server's text (no newline after a description; game 25, which starts
   * on the goal, is refused). `agenttraj`: AgentTraj-L's text (a newline after every description;
   * game 25 is played, and any command wins it).
   */
  dialect: z.enum(['agentgym', 'agenttraj']).default('agentgym'),
  /**
   * First observation: `client`, what AgentGym's client shows the model (its instructions, a
   * newline, the description); `server`, what `/maze/reset` answers (the description).
   */
  opening: z.enum(['client', 'server']).default('client'),
});
export type MazeConfig = z.input<typeof mazeConfigSchema>;

/** What AgentGym's client shows as the first observation, given the server's first description. */
export const mazeFirstObservation = (description: string) =>
  `${MAZE_FIRST_OBSERVATION_PROMPT}\n${description}`;

interface Episode {
  position: Cell;
  readonly game: number;
  readonly taskId: string | undefined;
  /** LMRL-Gym's step counter: steps that did not end on the goal. */
  engineSteps: number;
  steps: number;
  last: StepResult;
}

/**
 * Creates a Maze env. `reset({ seed })` plays AgentGym's game `seed` (0-25); `reset({ seed, taskId })`
 * plays the task (`train-3`, `valid_unseen-0`, ...). `copy()` gives an independent env in the same
 * state (see `StateCopies`).
 */
export function createMazeEnv(config?: MazeConfig): CopyableEnv {
  return mazeEnv(parseOrThrow(mazeConfigSchema, config ?? {}, 'maze config'), undefined);
}

/** The Maze env under a checked config, playing `started` (a copy's episode) or nothing until `reset`. */
function mazeEnv(config: z.output<typeof mazeConfigSchema>, started: Episode | undefined): CopyableEnv {
  const { dialect, opening } = config;
  const maxSteps =
    config.maxSteps ?? (dialect === 'agenttraj' ? AGENTGYM_MAZE_ROUNDS : Number.POSITIVE_INFINITY);
  const describe = (cell: Cell) => (dialect === 'agenttraj' ? `${describeCell(cell)}\n` : describeCell(cell));
  let episode = started;

  const result = (
    current: Episode,
    observation: string,
    valid: boolean,
    reward: number,
    end?: 'won' | 'lost',
  ): StepResult => {
    const truncated = end === undefined && current.steps >= maxSteps;
    return {
      observation,
      admissibleActions: end !== undefined || truncated ? [] : [...MAZE_ACTIONS],
      reward,
      terminated: end !== undefined,
      truncated,
      info: {
        won: end === 'won',
        valid,
        task: MAZE_TASK,
        ...(current.taskId === undefined ? {} : { taskId: current.taskId }),
        game: current.game,
        position: [current.position[0], current.position[1]],
      },
    };
  };

  return {
    envId: MAZE_ENV_ID,
    async reset(options: ResetOptions) {
      const { seed, taskId } = parseOrThrow(resetOptionsSchema, options, 'maze reset options');
      const game = taskId === undefined ? seed : mazeGameOf(taskId);
      const start = startOfGame(game);
      if (dialect === 'agentgym' && sameCell(start, GOAL)) {
        throw new InvalidArgumentError(
          `maze: game ${game} starts on the goal, which AgentGym's server refuses; create the env with dialect: 'agenttraj' to play it as AgentTraj-L does`,
        );
      }
      const fresh: Episode = {
        position: start,
        game,
        taskId,
        engineSteps: 0,
        steps: 0,
        last: undefined as never,
      };
      const description = describe(start);
      fresh.last = result(
        fresh,
        opening === 'client' ? mazeFirstObservation(description) : description,
        true,
        0,
      );
      episode = fresh;
      return fresh.last;
    },
    async step(action: string) {
      return stepEpisode(MAZE_ENV_ID, episode, action, (current, command) => {
        const valid = isMazeAction(command);
        if (current.engineSteps >= MAZE_ENGINE_STEPS) return result(current, 'Failure\n', valid, -1, 'lost');
        current.position = move(current.position, command);
        if (sameCell(current.position, GOAL)) return result(current, 'Success\n', valid, 1, 'won');
        current.engineSteps += 1;
        return result(current, describe(current.position), valid, 0);
      });
    },
    async copy() {
      if (episode === undefined) {
        throw new EnvError(`${MAZE_ENV_ID}: copy() was called before reset(); call reset({ seed }) first.`);
      }
      // Cells and step results are never mutated, only replaced, so a shallow copy is independent.
      return mazeEnv(config, { ...episode });
    },
    async close() {
      episode = undefined;
    },
  };
}
