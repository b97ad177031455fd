// What one AgentGym dialect (one env server of AgentGym) is made of: the env it speaks for, its
// health line, the env options that make our env answer as that server does, how a reset body
// picks a task, and the reply shapes of its routes. The shared runtime (runtime.ts) does the rest:
// integer ids, the id checks and their messages, sessions, deadlines and the 200 + `{"error"}` rule.
import type { ResetOptions, StepResult } from '@pilotrl/core';
import type { z } from 'zod';
import type { ServedEnv } from '../served-env';

export interface DialectSession {
  readonly id: number;
  /** AgentGym's `info[id]`: what `/detail` answers, keys in the original's order. */
  info: Record<string, unknown>;
  /** The session was reset at least once. */
  started: boolean;
  done: boolean;
  /** The last observation as the original server answered it. */
  observation: string;
  last: StepResult | undefined;
}

export type ResetBody = { id: number } & Record<string, unknown>;

export interface AgentGymDialect {
  /** The route prefix, e.g. `alfworld` for `/alfworld/create`. */
  readonly name: string;
  /** The served env it speaks for. */
  readonly envId: string;
  /** `GET <prefix>/`: the original's greeting. */
  readonly health: string;
  /** Options asked of `createEnv` so the env answers as the original server (its own opening text, no step limit). */
  readonly envOptions: Record<string, unknown>;
  /** A step after `done` is refused with "has finished" (every dialect but TextCraft's). */
  readonly refusesAfterDone: boolean;
  /** GET routes it has beyond create/reset/step/close, e.g. `observation`, `detail`. */
  readonly getRoutes: readonly string[];
  /** `info[id]` right after `/create`. */
  initialInfo(): Record<string, unknown>;
  readonly resetBody: z.ZodType<ResetBody>;
  /**
   * The original's answer to a step of a session created but never reset, where it has one:
   * `str(KeyError(id))`, the bare id, for the servers that keep their envs in a dict filled at reset.
   */
  stepBeforeReset?(id: number): string;
  /** Refuses a reset body before its id is checked, where the original checks it first (ALFWorld's `world_type`). */
  refuseReset?(body: ResetBody): void;
  /** The reset options of a reset body: the documented, deterministic index → task mapping. */
  resetOptions(body: ResetBody, served: ServedEnv): Promise<ResetOptions>;
  /** `/reset`'s reply; it also brings `session.info` and `session.observation` up to date. */
  resetReply(session: DialectSession, body: ResetBody, result: StepResult): unknown;
  /** `/step`'s reply; it also brings `session.info` and `session.observation` up to date. */
  stepReply(session: DialectSession, result: StepResult, action: string): unknown;
  /**
   * Whether `/create` resets the env at once, given the session's id and how many sessions were
   * created before it (the original's id: TextCraft resets with `data_idx` = that count).
   */
  readonly resetsAtCreate?: (id: number, index: number) => ResetBody;
  /** `/create`'s reply when it differs from `{id}` (TextCraft). */
  createReply?(session: DialectSession): unknown;
  /** Answers of the dialect's own GET routes, keyed by route name (`available_actions`, ...). */
  getReply?(route: string, session: DialectSession | undefined, served: ServedEnv): unknown;
  /** Routes answered without an id (Maze's `available_actions`). */
  readonly idFreeRoutes?: readonly string[];
}
