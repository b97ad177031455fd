// From OpenEnv's observation reply (`{observation: {...}, reward, done}`) to the protocol-free
// `RemoteStep`: where the text and the admissible actions are, by default or as configured.
import { describeIssues, EnvError, printable } from '@pilotrl/core';
import { z } from 'zod';
import type { RemoteStep } from '../episode';
import { type RemoteObservation, type ResolvedOpenEnvConfig, remoteObservationSchema } from '../options';

/** Keys read for the text, in order, when no `observation` option is given. */
export const TEXT_KEYS = ['text', 'observation', 'prompt', 'message', 'feedback'] as const;
/** Keys read for the admissible actions, in order. */
export const ADMISSIBLE_KEYS = [
  'admissible_actions',
  'admissibleActions',
  'available_actions',
  'legal_actions',
  'valid_actions',
] as const;

/** OpenEnv's `serialize_observation`: reward may be a bool, int, float or null (null after a reset). */
const replySchema = z.object({
  observation: z.record(z.string(), z.unknown()),
  reward: z
    .union([z.number(), z.boolean(), z.null()])
    .optional()
    .transform((reward) => Number(reward ?? 0))
    .refine(Number.isFinite, 'reward must be a finite number'),
  done: z.boolean(),
});

const stringArray = z.array(z.string());

/** The flags and names read from an observation, besides its text and admissible actions. */
const FLAG_KEYS = ['won', 'valid', 'truncated'] as const;

/**
 * The default reading of an observation object, with the keys it read; `textKey` overrides where
 * the text is.
 */
function defaultObservation(
  observation: Record<string, unknown>,
  url: string,
  textKey: string | undefined,
): { mapped: RemoteObservation; used: string[] } {
  const key = textKey ?? TEXT_KEYS.find((candidate) => typeof observation[candidate] === 'string');
  const text = key === undefined ? undefined : observation[key];
  if (key === undefined || typeof text !== 'string') {
    const keys = Object.keys(observation).join(', ') || 'none';
    throw new EnvError(
      textKey === undefined
        ? `${url}: the observation has none of the text fields ${TEXT_KEYS.join(', ')} (its keys: ${keys}); pass observation: '<key>' or a function to createRemoteEnv`
        : `${url}: the observation's "${textKey}" is ${text === undefined ? 'missing' : `not a string (${typeof text})`}; its keys: ${keys}`,
    );
  }
  const admissibleKey = ADMISSIBLE_KEYS.find(
    (candidate) => stringArray.safeParse(observation[candidate]).success,
  );
  const used = [key, ...(admissibleKey === undefined ? [] : [admissibleKey])];
  const flag = (name: string) => {
    if (typeof observation[name] !== 'boolean') return undefined;
    used.push(name);
    return observation[name] as boolean;
  };
  const word = (name: string) => {
    if (typeof observation[name] !== 'string') return undefined;
    used.push(name);
    return observation[name] as string;
  };
  const [won, valid, truncated] = FLAG_KEYS.map(flag);
  return {
    mapped: {
      text,
      admissibleActions: admissibleKey === undefined ? undefined : (observation[admissibleKey] as string[]),
      won,
      valid,
      truncated,
      task: word('task'),
      taskId: word('task_id'),
    },
    used,
  };
}

/** Reads an observation message's `data` as configured; throws an `EnvError` when it does not fit. */
export function readObservation(config: ResolvedOpenEnvConfig, data: unknown, what: string): RemoteStep {
  const reply = replySchema.safeParse(data);
  if (!reply.success) {
    throw new EnvError(
      `${config.url}: the reply to ${what} is not OpenEnv's {observation, reward, done}: ${describeIssues(reply.error.issues).join('; ')} (got ${printable(JSON.stringify(data) ?? 'undefined', 300)})`,
    );
  }
  const { observation, reward, done } = reply.data;
  const option = config.observation;
  let mapped: RemoteObservation;
  let server: Record<string, unknown>;
  if (typeof option === 'function') {
    const result = remoteObservationSchema.safeParse(option(observation));
    if (!result.success) {
      throw new EnvError(
        `${config.url}: the observation function returned something that is not a RemoteObservation: ${describeIssues(result.error.issues).join('; ')}`,
      );
    }
    mapped = result.data;
    server = observation;
  } else {
    const read = defaultObservation(observation, config.url, option);
    mapped = read.mapped;
    server = Object.fromEntries(Object.entries(observation).filter(([key]) => !read.used.includes(key)));
  }
  return { ...mapped, admissibleActions: mapped.admissibleActions, reward, done, server };
}
