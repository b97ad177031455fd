// The conformance check of the state-copy capability: a copy taken mid-episode has the original's
// future (the same commands give the same results), and stepping the copy leaves the original
// where it was (the original then answers as a fresh replay of its own commands does).
import { isDeepStrictEqual } from 'node:util';
import {
  type CopyableEnv,
  canCopyState,
  createRng,
  parseOrThrow,
  type ResetOptions,
  resetOptionsSchema,
  type StepResult,
  type TextEnv,
} from '@pilotrl/core';
import { z } from 'zod';
import { EnvCheckError } from './env-checks';

export const stateCopyCheckOptionsSchema = z.strictObject({
  /** Episodes to check, one reset each. */
  resets: z
    .array(resetOptionsSchema)
    .min(1)
    .default([{ seed: 0 }, { seed: 1 }, { seed: 2 }]),
  /** Random admissible commands played before the copy is taken. */
  stepsBeforeCopy: z.number().int().nonnegative().default(3),
  /** Random admissible commands played after it, on the copy and then on the original. */
  stepsAfterCopy: z.number().int().positive().default(6),
  seed: z.number().int().nonnegative().default(0),
});
export type StateCopyCheckOptions = z.input<typeof stateCopyCheckOptionsSchema>;

/** A random admissible command, or a command the env does not know when none is admissible. */
function pickCommand(result: StepResult, pick: <T>(items: readonly T[]) => T): string {
  return result.admissibleActions.length === 0 ? 'look' : pick(result.admissibleActions);
}

async function play(env: TextEnv, commands: readonly string[]): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const command of commands) results.push(await env.step(command));
  return results;
}

function requireCopyable(env: TextEnv): CopyableEnv {
  if (!canCopyState(env)) {
    throw new EnvCheckError(`state copies: env "${env.envId}" has no copy() method`);
  }
  return env;
}

/**
 * Checks `createEnv`'s envs against the state-copy contract; rejects with an `EnvCheckError` that
 * names the episode and the step where a copy's future or the original's state went wrong.
 */
export async function checkStateCopies(
  createEnv: () => TextEnv,
  options: StateCopyCheckOptions = {},
): Promise<void> {
  const config = parseOrThrow(stateCopyCheckOptionsSchema, options, 'state copy check options');
  const rng = createRng(config.seed);
  const beforeReset = requireCopyable(createEnv());
  const copiedEarly = await beforeReset.copy().then(
    () => true,
    () => false,
  );
  if (copiedEarly) {
    throw new EnvCheckError(`state copies: env "${beforeReset.envId}" copied itself before reset()`);
  }
  for (const reset of config.resets) {
    await checkEpisode(createEnv, reset, config, <T>(items: readonly T[]) => rng.pick(items));
  }
}

async function checkEpisode(
  createEnv: () => TextEnv,
  reset: ResetOptions,
  config: z.output<typeof stateCopyCheckOptionsSchema>,
  pick: <T>(items: readonly T[]) => T,
): Promise<void> {
  const where = (step: number) => `state copies: reset ${JSON.stringify(reset)}, step ${step} after the copy`;
  const original = requireCopyable(createEnv());
  let current = await original.reset(reset);
  const prefix: string[] = [];
  for (let step = 0; step < config.stepsBeforeCopy; step += 1) {
    const command = pickCommand(current, pick);
    prefix.push(command);
    current = await original.step(command);
  }
  const copy = await original.copy();
  const continuation: string[] = [];
  const onCopy: StepResult[] = [];
  for (let step = 0; step < config.stepsAfterCopy; step += 1) {
    const command = pickCommand(onCopy.at(-1) ?? current, pick);
    continuation.push(command);
    onCopy.push(await copy.step(command));
  }
  const onOriginal = await play(original, continuation);
  const replay = createEnv();
  await replay.reset(reset);
  await play(replay, prefix);
  const onReplay = await play(replay, continuation);
  for (let step = 0; step < continuation.length; step += 1) {
    if (!isDeepStrictEqual(onOriginal[step], onReplay[step])) {
      throw new EnvCheckError(
        `${where(step)}: after the copy was stepped, the original answered ${JSON.stringify(onOriginal[step]?.observation)} where a fresh replay answers ${JSON.stringify(onReplay[step]?.observation)}; a copy must not share state with its original`,
      );
    }
    if (!isDeepStrictEqual(onCopy[step], onOriginal[step])) {
      throw new EnvCheckError(
        `${where(step)}: the copy answered ${JSON.stringify(onCopy[step]?.observation)} where the original answers ${JSON.stringify(onOriginal[step]?.observation)}; a copy must have its original's future`,
      );
    }
  }
}
