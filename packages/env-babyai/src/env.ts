// The BabyAI TextEnv: AgentGym's text BabyAI server, natively. Reset by task id (or seed, which
// plays `train-<seed mod 810>`), commands answered with AgentGym's exact texts, AgentGym's reward
// and done rules, and the step limit (Minigrid's, or PilotRL's `maxSteps`) reported as truncated.
import {
  parseOrThrow,
  type ResetOptions,
  resetOptionsSchema,
  type StepResult,
  stepEpisode,
  type TextEnv,
} from '@pilotrl/core';
import { z } from 'zod';
import { AgentGymBabyAI, availableActionsSuffix } from './agentgym';
import { type LevelState, levelStateSchema } from './level';
import { BABYAI_ENV_ID, babyaiSplitSize, babyaiTaskOf } from './tasks';

/** The rounds AgentGym's trainer plays BabyAI, the `agenttraj` dialect's default step limit. */
export const AGENTGYM_BABYAI_ROUNDS = 20;

export const babyaiConfigSchema = z.strictObject({
  /**
   * Commands (valid or not) after which an unfinished episode is truncated. Default: in the
   * `agentgym` dialect, none; the episode is truncated where Minigrid truncates it, when its
   * primitive steps reach the level's `max_steps`. In `agenttraj`, 20, the rounds AgentGym's trainer
   * played.
   */
  maxSteps: z.number().int().positive().optional(),
  /**
   * `agentgym`: the server's text, every observation ending in `\nAvailable actions: [...]`.
   * `agenttraj`: AgentTraj-L's text, without that suffix.
   */
  dialect: z.enum(['agentgym', 'agenttraj']).default('agentgym'),
  /**
   * `agentgym`: every command AgentGym offers, macros such as `go to red ball 1` included.
   * `primitive`: only those that run one Minigrid action (`turn left`, `turn right`, `move
   * forward`, `toggle`, `drop`, `pickup <object> <k>` of the object in front); a macro is answered as
   * an unknown command. The texts are AgentGym's either way.
   */
  commands: z.enum(['agentgym', 'primitive']).default('agentgym'),
  /**
   * Extra start states by AgentGym data index (e.g. from `parseLevelFile` of a levels.jsonl),
   * played by `reset({ seed, taskId: 'babyai_<index>' })`; they take precedence over shipped ones.
   */
  levels: z.array(levelStateSchema.and(z.object({ data_idx: z.number().int().nonnegative() }))).optional(),
});
export type BabyaiConfig = z.input<typeof babyaiConfigSchema>;

interface Episode {
  readonly game: AgentGymBabyAI;
  readonly taskId: string;
  /** AgentGym's data index; none for a generated task. */
  readonly dataIdx: number | undefined;
  steps: number;
  score: number;
  last: StepResult;
}

/** Creates a BabyAI env. */
export function createBabyaiEnv(config?: BabyaiConfig): TextEnv {
  const {
    maxSteps: givenMaxSteps,
    dialect,
    commands,
    levels,
  } = parseOrThrow(babyaiConfigSchema, config ?? {}, 'babyai config');
  const maxSteps = givenMaxSteps ?? (dialect === 'agenttraj' ? AGENTGYM_BABYAI_ROUNDS : undefined);
  const extra = new Map<number, LevelState>((levels ?? []).map((level) => [level.data_idx, level]));
  const suffix = (game: AgentGymBabyAI) =>
    dialect === 'agentgym' ? availableActionsSuffix(game.availableActions()) : '';
  let episode: Episode | undefined;

  const result = (current: Episode, observation: string, valid: boolean, reward: number): StepResult => {
    const done = current.game.done;
    const { game } = current.game;
    const truncated =
      !done && (maxSteps === undefined ? game.stepCount >= game.maxSteps : current.steps >= maxSteps);
    return {
      observation,
      admissibleActions: done || truncated ? [] : current.game.availableActions(),
      reward,
      terminated: done,
      truncated,
      info: {
        won: done,
        valid,
        task: current.game.goal,
        taskId: current.taskId,
        level: current.game.game.level.level,
        ...(current.dataIdx === undefined ? {} : { dataIdx: current.dataIdx }),
        score: current.score,
      },
    };
  };

  const resolve = (
    options: ResetOptions,
  ): { taskId: string; dataIdx: number | undefined; level: LevelState } => {
    const item = options.taskId !== undefined && /^babyai_\d+$/.exec(options.taskId);
    if (item) {
      const dataIdx = Number(options.taskId!.slice('babyai_'.length));
      const custom = extra.get(dataIdx);
      if (custom !== undefined) return { taskId: options.taskId!, dataIdx, level: custom };
    }
    const taskId = options.taskId ?? `train-${options.seed % babyaiSplitSize('train')}`;
    return { taskId, ...babyaiTaskOf(taskId) };
  };

  return {
    envId: BABYAI_ENV_ID,
    async reset(options: ResetOptions) {
      const { taskId, dataIdx, level } = resolve(
        parseOrThrow(resetOptionsSchema, options, 'babyai reset options'),
      );
      const game = new AgentGymBabyAI(level, commands);
      const fresh: Episode = { game, taskId, dataIdx, steps: 0, score: 0, last: undefined as never };
      fresh.last = result(fresh, `Your goal: ${game.goal}\n${game.state}${suffix(game)}`, true, 0);
      episode = fresh;
      return fresh.last;
    },
    async step(action: string) {
      return stepEpisode(BABYAI_ENV_ID, episode, action, (current, command) => {
        const outcome = current.game.step(command);
        current.score += outcome.reward;
        return result(current, `${outcome.text}${suffix(current.game)}`, outcome.valid, outcome.reward);
      });
    },
    async close() {
      episode = undefined;
    },
  };
}
