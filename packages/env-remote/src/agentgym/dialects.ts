// AgentGym's per-env HTTP dialects as a client speaks them (agentenv's client classes, whose
// servers and ours answer alike): the reset body that picks task `index`, the reply shapes of
// reset and step, and where each dialect keeps its admissible actions, if anywhere.
import { describeIssues, EnvError, printable } from '@pilotrl/core';
import { z } from 'zod';
import type { AgentGymDialectName } from '../options';

/** A reset or step reply, read: the text, and the admissible actions when the reply carries them. */
export interface DialectReply {
  readonly text: string;
  readonly admissibleActions: readonly string[] | undefined;
  readonly reward: number;
  readonly done: boolean;
  /** The reply's other fields (`task_type`, `score`, ...), for `info.server`. */
  readonly server: Record<string, unknown>;
}

export interface AgentGymClientDialect {
  readonly name: AgentGymDialectName;
  /** `/reset`'s body for session `id` and task `index` (AgentGym's item number). */
  resetBody(id: number, index: number, worldType: string): Record<string, unknown>;
  readonly resetReply: z.ZodType<Record<string, unknown>>;
  readonly stepReply: z.ZodType<Record<string, unknown>>;
  /**
   * Admissible actions not in the replies: a GET route (`?id=` unless `idFree`) and how to read
   * its answer. Read once per session.
   */
  readonly admissibleRoute?: {
    readonly route: string;
    readonly idFree: boolean;
    readonly read: (reply: unknown) => string[];
  };
  /** Admissible actions inside the observation text (BabyAI's `Available actions: [...]`). */
  readonly admissibleInText?: (text: string) => string[] | undefined;
}

const text = z.string();
const reward = z.number().refine(Number.isFinite, 'reward must be finite');
const actions = z.array(z.string());
const stepShape = { observation: text, reward, done: z.boolean() };

/** BabyAI's suffix `\nAvailable actions: ["turn left", ...]`, parsed; undefined without one. */
export function babyaiActions(observation: string): string[] | undefined {
  const match = /\nAvailable actions: (\[.*\])\s*$/s.exec(observation);
  if (match === null) return undefined;
  try {
    const parsed = actions.safeParse(JSON.parse(match[1]!));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const vocabulary = z.array(z.string());

export const clientDialects: Record<AgentGymDialectName, AgentGymClientDialect> = {
  alfworld: {
    name: 'alfworld',
    resetBody: (id, index, worldType) => ({ id, game: index, world_type: worldType }),
    resetReply: z.looseObject({ observation: text, available_actions: actions }),
    stepReply: z.looseObject({ ...stepShape, available_actions: actions }),
  },
  textcraft: {
    name: 'textcraft',
    resetBody: (id, index) => ({ id, data_idx: index }),
    resetReply: z.looseObject({ observation: text }),
    stepReply: z.looseObject(stepShape),
  },
  babyai: {
    name: 'babyai',
    resetBody: (id, index) => ({ id, data_idx: index }),
    resetReply: z.looseObject({ observation: text }),
    stepReply: z.looseObject(stepShape),
    admissibleInText: babyaiActions,
  },
  maze: {
    name: 'maze',
    resetBody: (id, index) => ({ id, game: index }),
    resetReply: z.looseObject({ observation: text }),
    stepReply: z.looseObject(stepShape),
    admissibleRoute: { route: 'available_actions', idFree: true, read: (reply) => actions.parse(reply) },
  },
  wordle: {
    name: 'wordle',
    resetBody: (id, index) => ({ id, seed: index }),
    resetReply: z.looseObject({ observation: text }),
    stepReply: z.looseObject(stepShape),
    // The client shows the vocabulary; a guess is its letters spaced out, as the server's env takes it.
    admissibleRoute: {
      route: 'filtered_vocab',
      idFree: false,
      read: (reply) => vocabulary.parse(reply).map((word) => [...word].join(' ')),
    },
  },
  generic: {
    name: 'generic',
    resetBody: (id, index) => ({ id, data_idx: index }),
    resetReply: z.looseObject({ observation: text, available_actions: actions.optional() }),
    stepReply: z.looseObject({ ...stepShape, available_actions: actions.optional() }),
  },
};

/** Keys of a reply read into the StepResult (or meaningless across sessions, like `id`). */
const READ_KEYS = new Set(['id', 'observation', 'available_actions', 'reward', 'done']);

/** Reads a reset or step reply with the dialect's schema; an EnvError names what does not fit. */
export function readReply(
  dialect: AgentGymClientDialect,
  kind: 'reset' | 'step',
  reply: unknown,
  url: string,
): DialectReply {
  const schema = kind === 'reset' ? dialect.resetReply : dialect.stepReply;
  const parsed = schema.safeParse(reply);
  if (!parsed.success) {
    throw new EnvError(
      `${url}: the reply to ${kind} does not fit AgentGym's ${dialect.name} dialect: ${describeIssues(parsed.error.issues).join('; ')} (got ${printable(JSON.stringify(reply) ?? 'undefined', 300)})`,
    );
  }
  const body = parsed.data;
  const observation = body.observation as string;
  const listed = body.available_actions as string[] | undefined;
  return {
    text: observation,
    admissibleActions: listed ?? dialect.admissibleInText?.(observation),
    reward: kind === 'step' ? (body.reward as number) : 0,
    done: kind === 'step' ? (body.done as boolean) : false,
    server: Object.fromEntries(Object.entries(body).filter(([key]) => !READ_KEYS.has(key))),
  };
}
