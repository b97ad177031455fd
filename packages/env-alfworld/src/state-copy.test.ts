import { createRng, type ResetOptions, type StepCheck, type StepResult } from '@pilotrl/core';
import { checkStateCopies } from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { AlfworldEnv, createAlfworldEnv } from './env';
import { alfworldPlanSteps } from './plan-steps';
import { createGeneratedTaskSource } from './task-source';

describe('alfworld state copies', () => {
  it('a copy has the future of its original, and stepping it leaves the original alone', async () => {
    const tasks = await createGeneratedTaskSource().tasks('valid_seen', { limit: 2 });
    await checkStateCopies(() => createAlfworldEnv(), {
      resets: tasks.map((task) => ({ seed: task.seed, taskId: task.taskId })),
      stepsBeforeCopy: 5,
      stepsAfterCopy: 8,
    });
  });

  it('a copy plays the oracle solution to a win from where the original stood', async () => {
    const source = createGeneratedTaskSource();
    const [task] = await source.tasks('valid_seen', { limit: 1 });
    const { actions } = await source.oracle!(task!);
    const original = createAlfworldEnv();
    await original.reset({ seed: task!.seed, taskId: task!.taskId });
    const half = Math.floor(actions.length / 2);
    for (const action of actions.slice(0, half)) await original.step(action);
    const copy = await original.copy();
    let last = await copy.step(actions[half]!);
    for (const action of actions.slice(half + 1)) last = await copy.step(action);
    expect(last.info.won).toBe(true);
    const untouched = await original.step('inventory');
    expect(untouched.info.won).toBe(false);
  });

  it('copying before reset is an error', async () => {
    await expect(createAlfworldEnv().copy()).rejects.toThrow(/before reset/);
  });
});

/** Plays `commands` on `env` from `reset`: the state a copy must be in, reached without copies. */
async function replayed(
  env: AlfworldEnv,
  reset: ResetOptions,
  commands: readonly string[],
): Promise<StepResult> {
  let last = await env.reset(reset);
  for (const command of commands) last = await env.step(command);
  return last;
}

/** The next command of `solution` once `history` has played a prefix of it in order, with detours. */
function nextOfSolution(solution: readonly string[], history: readonly string[]): string | undefined {
  let done = 0;
  for (const command of history) if (command === solution[done]) done += 1;
  return solution[done];
}

/** An env in play beside a fresh env that replays its commands, with the same step checks on both. */
interface Side {
  readonly env: AlfworldEnv;
  readonly reference: AlfworldEnv;
  readonly history: string[];
  readonly checks: readonly StepCheck[];
  readonly referenceChecks: readonly StepCheck[];
  last: StepResult;
}

const passed = (checks: readonly StepCheck[]) => checks.map((check) => check.passed());

describe('alfworld state copies, differentially', () => {
  it('a copy and its original answer every later command as fresh replays of their own commands do', async () => {
    const rng = createRng(11);
    const source = createGeneratedTaskSource();
    const tasks = [
      ...(await source.tasks('train', { limit: 4 })),
      ...(await source.tasks('valid_seen', { limit: 2 })),
      ...(await source.tasks('valid_unseen', { limit: 2 })),
    ];
    const seen = { copies: 0, won: 0, truncated: 0, invalid: 0 };
    const note = (result: StepResult) => {
      if (result.info.won) seen.won += 1;
      if (result.truncated) seen.truncated += 1;
      if (!result.info.valid) seen.invalid += 1;
    };
    for (const [index, task] of tasks.entries()) {
      // Both dialects; a step limit the walk runs into on some tasks; the oracle's solution to
      // steer half of the walks towards a win.
      const dialect = index % 2 === 0 ? 'legacy' : 'current';
      const config = { dialect, maxSteps: index % 3 === 0 ? 24 : 50 } as const;
      const solution =
        index % 4 < 2 ? (await createGeneratedTaskSource({ dialect }).oracle!(task)).actions : [];
      const reset = { seed: task.seed, taskId: task.taskId };
      const original = new AlfworldEnv(config);
      const references = [new AlfworldEnv(config), new AlfworldEnv(config)] as const;
      let last = await original.reset(reset);
      const vocabulary = alfworldPlanSteps.steps({ goal: last.info.task!, observations: [last.observation] });
      const history: string[] = [];
      // Mostly the solution's next command while it is admissible, else a random admissible one;
      // now and then one the game refuses, the only kind a finished episode is sent.
      const choose = (result: StepResult, played: readonly string[]): string => {
        if (result.admissibleActions.length === 0 || rng.float() < 0.1) return 'jump over the moon';
        const planned = nextOfSolution(solution, played);
        if (planned !== undefined && result.admissibleActions.includes(planned) && rng.float() < 0.6)
          return planned;
        return rng.pick(result.admissibleActions);
      };
      for (let turn = 0; turn < 40; turn++) {
        // Copies at random turns, and one of the finished episode.
        const over = last.terminated || last.truncated;
        if (over || rng.float() < 0.4) {
          seen.copies += 1;
          const where = `${task.taskId} (${dialect}), copied after ${JSON.stringify(history)}`;
          const copy = rng.float() < 0.3 ? await (await original.copy()).copy() : await original.copy();
          const side = async (env: AlfworldEnv, reference: AlfworldEnv): Promise<Side> => {
            expect(await replayed(reference, reset, history), where).toEqual(last);
            return {
              env,
              reference,
              history: [...history],
              checks: vocabulary.map((step) => env.checkStep(step)),
              referenceChecks: vocabulary.map((step) => reference.checkStep(step)),
              last,
            };
          };
          const [fromOriginal, fromCopy] = [
            await side(original, references[0]),
            await side(copy, references[1]),
          ];
          const play = async (s: Side, command: string): Promise<StepResult> => {
            s.history.push(command);
            s.last = await s.env.step(command);
            const at = `${where}, ${s.env === original ? 'original' : 'copy'} then played ${JSON.stringify(s.history.slice(history.length))}`;
            expect(s.last, at).toEqual(await s.reference.step(command));
            expect(passed(s.checks), at).toEqual(passed(s.referenceChecks));
            note(s.last);
            return s.last;
          };
          // The same commands on both: the same results and step checks.
          for (let k = 0; k < 3; k++) {
            const command = choose(fromOriginal.last, fromOriginal.history);
            const copyResult = await play(fromCopy, command);
            expect(copyResult, where).toEqual(await play(fromOriginal, command));
            expect(passed(fromCopy.checks), where).toEqual(passed(fromOriginal.checks));
          }
          // Commands on one alone, the copy first: each goes on as its own replay does, whatever
          // the other played.
          for (let k = 0; k < 4; k++) {
            const s = k % 2 === 0 ? fromCopy : fromOriginal;
            await play(s, choose(s.last, s.history));
          }
          history.splice(0, history.length, ...fromOriginal.history);
          last = fromOriginal.last;
        }
        if (over) break;
        const command = choose(last, history);
        history.push(command);
        last = await original.step(command);
        note(last);
      }
    }
    expect(seen.copies).toBeGreaterThan(30);
    expect(seen.won).toBeGreaterThan(0);
    expect(seen.truncated).toBeGreaterThan(0);
    expect(seen.invalid).toBeGreaterThan(0);
  });
});
