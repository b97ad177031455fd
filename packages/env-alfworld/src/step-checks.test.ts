import type { StepCheck } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { GameEngine } from './engine';
import { AlfworldEnv } from './env';
import { compileScene, type Dialect } from './game-file';
import { alfworldPlanOf, alfworldPlanSteps } from './plan-steps';
import { createGeneratedTaskSource, sceneOfTaskId } from './task-source';

/** The oracle's commands as a plan that also names each walk: "go to" steps among the others. */
const planWithWalks = (actions: readonly string[]) =>
  actions.flatMap((action) => (action.startsWith('go to ') ? [action] : alfworldPlanOf([action])));

const treatedPred = { heat: 'ishot', cool: 'iscool', clean: 'isclean' } as const;

/**
 * Whether the object a treatment step names was treated already when the agent took it: the
 * commands up to the take replayed on a fresh engine of the same game, whose atoms are then read.
 */
function treatedWhenTaken(
  taskId: string,
  dialect: Dialect,
  step: string,
  actions: readonly string[],
  takenAt: number,
): boolean {
  const treat = /^(heat|cool|clean) /.exec(step);
  const take = /^take (.+?) from /.exec(actions[takenAt] ?? '');
  if (treat === null || take === null) return false;
  const engine = new GameEngine(compileScene(sceneOfTaskId(taskId)!, dialect));
  for (const action of actions.slice(0, takenAt + 1)) engine.step(action);
  const pred = treatedPred[treat[1] as keyof typeof treatedPred];
  return engine
    .trueAtoms()
    .some(
      ([p, id]) =>
        p === pred && engine.game.entityNames[engine.game.entityIndex.get(id!)!]!.trim() === take[1],
    );
}

describe("ALFWorld's step checks", () => {
  it("pass each step of the oracle's plan at the turn that carries it out, and not before", async () => {
    const types = new Set<string>();
    // Treatments of objects the game had treated already (a plate kept in the fridge is cold).
    let treatedBeforehand = 0;
    for (const dialect of ['legacy', 'current'] as const) {
      const source = createGeneratedTaskSource({ dialect });
      const env = new AlfworldEnv({ maxSteps: 50, dialect });
      for (const task of await source.tasks('train', { offset: dialect === 'legacy' ? 0 : 500, limit: 30 })) {
        const { actions } = await source.oracle!(task);
        const oraclePlan = alfworldPlanOf(actions);
        for (const plan of [oraclePlan, planWithWalks(actions)]) {
          const opening = await env.reset({ seed: task.seed, taskId: task.taskId });
          // The turn that carries out each step, as the agent loop counts it from the commands.
          const carriedOutAt: number[] = [];
          // The turn each step's check passes at: checks started one after another, at most one
          // passing per turn (one command, one step), as a step-check replay runs them.
          const passedAt: number[] = [];
          for (const step of plan) expect(env.cannotCheckStep(step), step).toBeUndefined();
          let check: StepCheck | undefined = env.checkStep(plan[0]!);
          expect(check.passed()).toBe(false);
          for (const [turn, action] of actions.entries()) {
            const result = await env.step(action);
            const next = plan[carriedOutAt.length];
            if (next !== undefined && alfworldPlanSteps.executes(next, action, result.observation)) {
              carriedOutAt.push(turn);
            }
            if (check?.passed()) {
              passedAt.push(turn);
              const following = plan[passedAt.length];
              check = following === undefined ? undefined : env.checkStep(following);
            }
          }
          expect(opening.info.won).toBe(false);
          expect(carriedOutAt, task.taskId).toHaveLength(plan.length);
          expect(passedAt, `${task.taskId}: ${plan.join(', ')}`).toEqual(carriedOutAt);
          if (plan !== oraclePlan) continue;
          for (const [index, step] of plan.entries()) {
            const takenAt = carriedOutAt[index - 1] ?? -1;
            if (treatedWhenTaken(task.taskId, dialect, step, actions, takenAt)) treatedBeforehand += 1;
          }
        }
        types.add(task.taskType!);
      }
    }
    expect(types.size).toBe(6);
    expect(treatedBeforehand).toBeGreaterThan(0);
  });

  it('wait for a fact that already held when the step began to be made true again', async () => {
    const source = createGeneratedTaskSource();
    const [task] = (await source.tasks('train', { limit: 40 })).filter(
      (t) => t.taskType === 'pick_two_obj_and_place',
    );
    const env = new AlfworldEnv({ maxSteps: 50 });
    await env.reset({ seed: task!.seed, taskId: task!.taskId });
    const { actions } = await source.oracle!(task!);
    const puts = actions.filter((action) => /^(put|move) /.test(action));
    expect(puts).toHaveLength(2);
    const [putStep] = alfworldPlanOf([puts[0]!]);
    const firstPut = actions.indexOf(puts[0]!);
    for (const action of actions.slice(0, firstPut + 1)) await env.step(action);
    // One object of the type lies in the receptacle now; the same step begun now needs another.
    const again = env.checkStep(putStep!);
    expect(again.passed()).toBe(false);
    const secondPut = actions.lastIndexOf(puts[1]!);
    for (const action of actions.slice(firstPut + 1, secondPut)) {
      await env.step(action);
      expect(again.passed()).toBe(false);
    }
    await env.step(actions[secondPut]!);
    expect(again.passed()).toBe(true);
  });

  it('say which steps they cannot check, and refuse to check them', async () => {
    const env = new AlfworldEnv();
    expect(() => env.checkStep('take apple')).toThrow(/before reset/);
    const [task] = await createGeneratedTaskSource().tasks('train', { limit: 1 });
    await env.reset({ seed: task!.seed, taskId: task!.taskId });
    expect(env.cannotCheckStep('find the apple and eat it')).toMatch(
      /not a step of ALFWorld's plan-step vocabulary/,
    );
    expect(() => env.checkStep('find the apple and eat it')).toThrow(/find the apple/);
  });
});
