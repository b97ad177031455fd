// AdaPlan with an env's plan-step vocabulary on ALFWorld: plans written through the trie always
// parse, the executed-step index comes from the actions taken, revisions keep those steps, and
// plans the vocabulary cannot express are refused.
import type { GenerateRequest, GenerateResult, PlanStepVocabulary, Policy } from '@pilotrl/core';
import {
  ALFWORLD_ENV_ID,
  AlfworldEnv,
  alfworldPlanOf,
  alfworldPlanSteps,
  alfworldStateView,
  createGeneratedTaskSource,
} from '@pilotrl/env-alfworld';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent } from '../src/agent';
import { fixedPlanProvider } from '../src/plan-providers';
import { rollout } from '../src/rollout';
import { PLAN_END } from '../src/step-trie';
import { createVectorEnv } from '../src/vector-env';

const taskSource = createGeneratedTaskSource();
const stepForm = /^(go to \S+|take \S+$|(heat|cool|clean) \S+ with \S+|put \S+ in \S+|use \S+$)/;

/**
 * Plays `actions` in order and writes `plan` through the trie: a plan-step request (its prompt ends
 * with the open "Step N: ..." line) gets the choice that continues step N of `plan`, or the end.
 */
function oraclePlayer(
  actions: readonly string[],
  plan: readonly string[] = [],
): Policy & { planPrompts: string[] } {
  let turn = 0;
  const planPrompts: string[] = [];
  return {
    name: 'oracle-player',
    version: 0,
    planPrompts,
    async generate(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
      return requests.map((request) => {
        const choices = request.choices!;
        const prompt = request.messages.at(-1)!.content;
        const open = /Step (\d+): ([^\n]*)$/.exec(prompt);
        let text: string;
        if (open === null) {
          text = actions[turn++]!;
        } else {
          planPrompts.push(prompt);
          const target = plan[Number(open[1]) - 1];
          text =
            target === undefined
              ? PLAN_END
              : choices.find((choice) => `${target}\n`.startsWith(open[2]! + choice))!;
        }
        return {
          text,
          tokenIds: [],
          logprobs: [],
          promptTokenIds: [],
          finishReason: 'choice',
          choiceIndex: choices.indexOf(text),
          policyVersion: 0,
        };
      });
    },
  };
}

describe('plans in a plan-step vocabulary', () => {
  it('writes plans that always parse, and revisions keep the steps the actions carried out', async () => {
    const tasks = await taskSource.tasks('valid_seen', { limit: 6 });
    const opening = await new AlfworldEnv().reset({ seed: tasks[0]!.seed, taskId: tasks[0]!.taskId });
    const model = await TfjsPolicy.create({
      tokenizer: Tokenizer.train([opening.observation, ...opening.admissibleActions], { vocabSize: 400 }),
      model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 2048, seed: 4 },
    });
    const agent = createAdaPlanAgent(model.sampler(), {
      actionSpace: 'choice',
      view: alfworldStateView,
      planSteps: alfworldPlanSteps,
      maxPlanSteps: 4,
      maxTurns: 8,
      contextTokens: 2048,
      act: { maxTokens: 16 },
      revision: { mode: 'every_k', k: 3 },
    });
    const vectorEnv = createVectorEnv(() => new AlfworldEnv({ maxSteps: 8 }), { size: 6 });
    const episodes = await rollout(agent, vectorEnv, { envId: ALFWORLD_ENV_ID, tasks, seed: 2 });
    for (const episode of episodes) {
      expect(episode.metadata).toMatchObject({ planKind: 'steps' });
      expect(episode.planHistory.length).toBeGreaterThan(0);
      for (const [index, revision] of episode.planHistory.entries()) {
        expect(revision.steps.length).toBeGreaterThan(0);
        expect(revision.steps.length).toBeLessThanOrEqual(4);
        for (const step of revision.steps) expect(step).toMatch(stepForm);
        if (index > 0) {
          const previous = episode.planHistory[index - 1]!;
          expect(revision.steps.slice(0, revision.fixedSteps)).toEqual(
            previous.steps.slice(0, revision.fixedSteps),
          );
        }
      }
      const plans = episode.turns.flatMap((turn) => turn.generations.filter((g) => g.kind === 'plan'));
      expect(plans.length).toBeGreaterThan(0);
      expect(plans.every((g) => g.finishReason === 'choice' && g.allowedTokenIds !== undefined)).toBe(true);
      const last = episode.planHistory.at(-1)!;
      expect(episode.metadata.executedSteps as number).toBeLessThanOrEqual(last.steps.length);
    }
    model.dispose();
  });

  it("writes the oracle's plan through the trie, counts its steps as the oracle's commands carry them out, and keeps them in every revision", async () => {
    const tasks = await taskSource.tasks('train', { limit: 4 });
    for (const task of tasks) {
      const { actions } = await taskSource.oracle!(task);
      const plan = alfworldPlanOf(actions);
      const player = oraclePlayer(actions, plan);
      const agent = createAdaPlanAgent(player, {
        actionSpace: 'choice',
        view: alfworldStateView,
        planSteps: alfworldPlanSteps,
        contextTokens: 100_000,
        revision: { mode: 'every_turn' },
      });
      const vectorEnv = createVectorEnv(() => new AlfworldEnv({ maxSteps: 50 }), { size: 1 });
      const [episode] = await rollout(agent, vectorEnv, { envId: ALFWORLD_ENV_ID, tasks: [task] });
      expect(episode!.won).toBe(true);
      expect(episode!.planHistory).toHaveLength(1);
      expect(episode!.planHistory[0]!.steps).toEqual(plan);
      expect(episode!.metadata.executedSteps).toBe(plan.length);
      // Before each command, the steps its predecessors carried out: from 0, by one at a time, to all but the last.
      const doneBefore = episode!.metadata.stepsDoneByTurn as number[];
      expect(doneBefore).toHaveLength(actions.length);
      expect(doneBefore[0]).toBe(0);
      for (let turn = 1; turn < doneBefore.length; turn++) {
        expect(doneBefore[turn]! - doneBefore[turn - 1]!).toBeGreaterThanOrEqual(0);
        expect(doneBefore[turn]! - doneBefore[turn - 1]!).toBeLessThanOrEqual(1);
      }
      expect(doneBefore.at(-1)).toBe(plan.length - 1);
      // A revision after k steps were carried out writes from step k + 1 on: steps 1..k are fixed.
      const revisions = player.planPrompts.flatMap((prompt) => {
        const done = /Steps 1 to (\d+) are carried out/.exec(prompt);
        return done === null
          ? []
          : [{ done: Number(done[1]), open: Number(/Step (\d+): [^\n]*$/.exec(prompt)![1]) }];
      });
      expect(revisions.some((r) => r.done >= 1)).toBe(true);
      for (const revision of revisions) expect(revision.open).toBeGreaterThan(revision.done);
    }
  });

  it('refuses a provided plan the vocabulary cannot express, and plays on without a plan when it offers no step', async () => {
    const [task] = await taskSource.tasks('train', { limit: 1 });
    const { actions } = await taskSource.oracle!(task!);
    const provided = createAdaPlanAgent(oraclePlayer(actions), {
      actionSpace: 'choice',
      view: alfworldStateView,
      planSteps: alfworldPlanSteps,
      contextTokens: 100_000,
      planSource: {
        kind: 'provided',
        source: 'oracle',
        provider: fixedPlanProvider({ [task!.taskId]: [['Go to the countertop and look around.']] }),
      },
    });
    const vectorEnv = createVectorEnv(() => new AlfworldEnv({ maxSteps: 50 }), { size: 1 });
    await expect(rollout(provided, vectorEnv, { envId: ALFWORLD_ENV_ID, tasks: [task!] })).rejects.toThrow(
      /"Go to the countertop and look around\.", which the env's plan-step vocabulary cannot express/,
    );
    const empty: PlanStepVocabulary = { steps: () => [], executes: () => false };
    const planless = createAdaPlanAgent(oraclePlayer(actions), {
      actionSpace: 'choice',
      view: alfworldStateView,
      planSteps: empty,
      contextTokens: 100_000,
      revision: { mode: 'never' },
    });
    const [episode] = await rollout(planless, vectorEnv, { envId: ALFWORLD_ENV_ID, tasks: [task!] });
    expect(episode!.won).toBe(true);
    expect(episode!.planHistory).toEqual([]);
    expect(episode!.metadata.emptyPlanVocabularies).toBeGreaterThan(0);
  });
});
