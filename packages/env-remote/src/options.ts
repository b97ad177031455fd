// The remote env's configuration, validated once: which protocol and server, how the server's
// objects map to a StepResult, and the limits on waiting (timeouts, connect retries).
import type { ResetOptions } from '@pilotrl/core';
import { z } from 'zod';

/** What an OpenEnv observation object means for a step, as a mapping function returns it. */
export const remoteObservationSchema = z.object({
  /** The text the agent reads. */
  text: z.string(),
  /** Commands the env accepts now; absent when the server does not say. */
  admissibleActions: z.array(z.string()).optional(),
  /** The task is accomplished (default: the episode ended, not cut, with a reward above 0). */
  won: z.boolean().optional(),
  /** The env understood the command (default: it was among the previous admissible actions, or true). */
  valid: z.boolean().optional(),
  /** The episode was cut by a limit, not ended by the rules. */
  truncated: z.boolean().optional(),
  /** The goal in words. */
  task: z.string().optional(),
  taskId: z.string().optional(),
});
export type RemoteObservation = z.infer<typeof remoteObservationSchema>;

const fn = <F>(what: string) =>
  z.custom<F>((value) => typeof value === 'function', { message: `expected a function: ${what}` });

/** AgentGym's per-env HTTP dialects (`generic`: create / reset `{id, data_idx}` / step / close). */
export const AGENTGYM_DIALECTS = ['alfworld', 'textcraft', 'babyai', 'maze', 'wordle', 'generic'] as const;
export type AgentGymDialectName = (typeof AGENTGYM_DIALECTS)[number];

const connection = {
  /**
   * The server. OpenEnv: its base URL (`http://host:8000`, `/ws` is appended) or the WebSocket
   * itself (`ws://host:8000/ws`). AgentGym: the dialect's prefix, as a client's `env_addr`
   * (`http://host:8000` for AgentGym's own servers, `http://host:8000/maze` for ours).
   */
  url: z.url({ protocol: /^(https?|wss?)$/ }),
  /** The `envId` the TextEnv reports (default: the dialect's name, or `openenv`). */
  envId: z.string().min(1).optional(),
  /** How long one connection attempt may take (OpenEnv's client waits 10 s). */
  connectTimeoutMs: z.number().int().positive().default(10_000),
  /** How long a reply to one reset or step may take (OpenEnv's client waits 60 s). */
  requestTimeoutMs: z.number().int().positive().default(60_000),
  /** Further attempts after a failed connection (refused, reset, timed out) before giving up. */
  connectRetries: z.number().int().nonnegative().max(20).default(3),
  /** Wait before the first retry; doubled after each failed attempt (at most 10 s). */
  retryDelayMs: z.number().int().nonnegative().default(250),
  /** Largest message (OpenEnv) or reply body (AgentGym) accepted from the server, in bytes (OpenEnv's client: 100 MB). */
  maxMessageBytes: z
    .number()
    .int()
    .positive()
    .default(100 * 1024 * 1024),
  /**
   * Steps after which an unfinished episode reports `truncated: true` here, whatever the server
   * says (AgentGym's servers have no limit: AgentGym-RL counts rounds itself). Default: none.
   */
  maxSteps: z.number().int().positive().optional(),
};

export const openEnvConfigSchema = z.strictObject({
  protocol: z.literal('openenv'),
  ...connection,
  /**
   * Where the text is: a key of the observation object, or a function of it returning
   * `RemoteObservation`. Default: the first string among `text`, `observation`, `prompt`,
   * `message`, `feedback`; admissible actions from `admissible_actions` (or `admissibleActions`,
   * `available_actions`, `legal_actions`, `valid_actions`); `won`, `valid`, `truncated`, `task`,
   * `task_id` when present.
   */
  observation: z
    .union([
      z.string().min(1),
      fn<(observation: Record<string, unknown>) => RemoteObservation>('observation'),
    ])
    .optional(),
  /** The step's action object: `{[key]: command}` for a key (default `action`), or a function of the command. */
  action: z
    .union([z.string().min(1), fn<(command: string) => Record<string, unknown>>('action')])
    .default('action'),
  /** The reset message's data. Default: `{seed}`, plus `task_id` when the reset names a task. */
  resetData: fn<(options: ResetOptions) => Record<string, unknown>>('resetData').optional(),
});
export type OpenEnvConfig = z.input<typeof openEnvConfigSchema>;

export const agentGymConfigSchema = z.strictObject({
  protocol: z.literal('agentgym'),
  /** Which server's routes, bodies and replies to speak. */
  dialect: z.enum(AGENTGYM_DIALECTS),
  ...connection,
  /** ALFWorld's `world_type` in `/reset`. */
  worldType: z.enum(['Text', 'Embody', 'Hybrid']).default('Text'),
});
export type AgentGymConfig = z.input<typeof agentGymConfigSchema>;

export const remoteEnvConfigSchema = z.discriminatedUnion('protocol', [
  openEnvConfigSchema,
  agentGymConfigSchema,
]);
export type RemoteEnvConfig = z.input<typeof remoteEnvConfigSchema>;
export type ResolvedOpenEnvConfig = z.output<typeof openEnvConfigSchema>;
export type ResolvedAgentGymConfig = z.output<typeof agentGymConfigSchema>;
export type ConnectionConfig = Pick<
  ResolvedOpenEnvConfig,
  'url' | 'connectTimeoutMs' | 'requestTimeoutMs' | 'connectRetries' | 'retryDelayMs'
>;
