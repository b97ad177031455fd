// The pieces every section of the curriculum config is built from: strict objects whose unknown-key
// error lists the keys allowed there, and bounded whole numbers whose errors give the bound.
import { printable } from '@pilotrl/core';
import { z } from 'zod';

/** The first unknown keys, quoted printably, and how many more there are. */
export function listKeys(keys: readonly string[]): string {
  const listed = keys.slice(0, 5).map((key) => `"${printable(key, 40)}"`);
  if (keys.length > 5) listed.push(`and ${keys.length - 5} more`);
  return listed.join(', ');
}

/** The error of unknown `keys` at a place that allows `allowed`. */
export const unknownKeysMessage = (keys: readonly string[], allowed: readonly string[]) =>
  `unknown key${keys.length > 1 ? 's' : ''} ${listKeys(keys)}; allowed here: ${allowed.join(', ')}`;

/** A strict object whose unknown-key error lists the keys that are allowed at that place. */
export function strict<Shape extends z.ZodRawShape>(shape: Shape) {
  const allowed = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, allowed) : undefined,
  });
}

export const seed = z.number().int().nonnegative().max(0xffffffff);

/** A whole number from `min` (default 1) to `max`; the bounds are listed in the README. */
export const count = (max: number, min = 1) =>
  z
    .number()
    .int()
    .min(min, { error: (issue) => `must be at least ${min} (got ${issue.input})` })
    .max(max, { error: (issue) => `must be at most ${max} (got ${issue.input})` });

/** The error of a required key when it is missing; its schema's own otherwise. */
export const needed = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? message : undefined),
});
