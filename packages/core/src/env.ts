// The text environment contract: async reset/step over observation text and admissible commands.
import { z } from 'zod';
import { EnvError } from './errors';

/**
 * Per-step facts every env reports. `won`: the task is accomplished. `valid`: the env understood
 * and executed the action (an inadmissible or malformed action is an observation, never an
 * exception, and has `valid: false`). Envs may add JSON-serialisable keys of their own.
 */
export const envInfoSchema = z.looseObject({
  won: z.boolean(),
  valid: z.boolean(),
  /** The goal in words, as the agent should be told it. */
  task: z.string().optional(),
  taskId: z.string().optional(),
  taskType: z.string().optional(),
  /** Set by a vector env when this env failed or timed out and was deactivated. */
  error: z.string().optional(),
});
export type EnvInfo = z.infer<typeof envInfoSchema>;

export const stepResultSchema = z.object({
  observation: z.string(),
  /** Commands the env accepts now, in the env's own order. */
  admissibleActions: z.array(z.string()),
  reward: z.number().refine(Number.isFinite, 'reward must be finite'),
  /** The episode ended by the env's rules (won or lost). */
  terminated: z.boolean(),
  /** The episode was cut by a limit (step limit, timeout), not by the env's rules. */
  truncated: z.boolean(),
  info: envInfoSchema,
});
export type StepResult = z.infer<typeof stepResultSchema>;

export const resetOptionsSchema = z.object({
  seed: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  /** Which task to play; envs with a single task family may derive it from the seed. */
  taskId: z.string().min(1).optional(),
});
export type ResetOptions = z.infer<typeof resetOptionsSchema>;

export interface TextEnv {
  /** The registry id of this env's kind, e.g. `alfworld`. */
  readonly envId: string;
  /** Starts a new episode. The same options give the same episode. */
  reset(options: ResetOptions): Promise<StepResult>;
  /** Plays one command. Never throws for a bad action: that is `info.valid = false`. */
  step(action: string): Promise<StepResult>;
  close?(): Promise<void>;
}

/**
 * A batch of envs stepped together. `active[i]` is false once env i terminated, truncated,
 * failed or timed out; stepping it then yields `null` for that slot. An env that throws or
 * exceeds the per-call timeout is deactivated and reports `truncated: true` with `info.error`.
 */
export interface VectorEnv {
  readonly size: number;
  readonly active: readonly boolean[];
  reset(options: readonly ResetOptions[]): Promise<StepResult[]>;
  /** One action per env; `null` for envs that should not be stepped this call. */
  step(actions: readonly (string | null)[]): Promise<(StepResult | null)[]>;
  close(): Promise<void>;
}

/** What every env answers to a step after its episode ended. */
export const EPISODE_OVER_OBSERVATION = 'The episode is over. Call reset() to start a new one.';

/** What every episodic env keeps of its episode: the steps taken and the last result. */
export interface EpisodeProgress {
  steps: number;
  last: StepResult;
}

/**
 * One `step` of an episodic env, with the parts every env shares: a step before any `reset` is an
 * `EnvError`; a step after the episode ended gets the episode-over answer (the final result again,
 * no reward, nothing admissible, `valid: false`); otherwise the step is counted, `advance` plays
 * `command` (the action, or '' when a caller passed something else) and its result becomes `last`.
 */
export function stepEpisode<E extends EpisodeProgress>(
  envId: string,
  episode: E | undefined,
  action: unknown,
  advance: (episode: E, command: string) => StepResult,
): StepResult {
  if (episode === undefined) {
    throw new EnvError(`${envId}: step() was called before reset(); call reset({ seed }) first.`);
  }
  if (episode.last.terminated || episode.last.truncated) {
    return {
      ...episode.last,
      observation: EPISODE_OVER_OBSERVATION,
      admissibleActions: [],
      reward: 0,
      info: { ...episode.last.info, valid: false },
    };
  }
  episode.steps += 1;
  episode.last = advance(episode, typeof action === 'string' ? action : '');
  return episode.last;
}
