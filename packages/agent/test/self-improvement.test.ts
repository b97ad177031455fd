// Self-improvement's agent side on ALFWorld: fixed commands replayed through the rollout engine
// (the prompts a policy would have seen), and relabelling groups of episodes into scripts: wins
// without their detours, lost groups as the goal they reached.
import { createRng, type Episode, type TaskRef } from '@pilotrl/core';
import {
  ALFWORLD_ENV_ID,
  AlfworldEnv,
  alfworldHindsight,
  alfworldPlanOf,
  alfworldPlanSteps,
  alfworldStateView,
  createGeneratedTaskSource,
} from '@pilotrl/env-alfworld';
import { episodeRecord, turnRecord } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent, createReActAgent } from '../src/agent';
import { relabelEpisodes } from '../src/relabel';
import { replayScripts } from '../src/scripted-replay';
import { replay } from '../src/shortcut';
import { PLAN_END } from '../src/step-trie';
import { createVectorEnv } from '../src/vector-env';

const taskSource = createGeneratedTaskSource();
const noPolicy = { name: 'none', version: 0, generate: async () => [] };
const agent = createReActAgent(noPolicy, { view: alfworldStateView, contextTokens: 100_000 });
const vectorEnv = () => createVectorEnv(() => new AlfworldEnv({ maxSteps: 40 }), { size: 1 });

/** An episode record of `commands` played in `task`, as the relabeller reads it. */
function episodeOf(task: TaskRef, groupId: string, commands: readonly string[], won: boolean): Episode {
  return episodeRecord([], {
    id: `${groupId}/${commands.length}`,
    envId: ALFWORLD_ENV_ID,
    taskId: task.taskId,
    split: task.split,
    seed: task.seed,
    groupId,
    paradigm: 'react',
    task: '',
    initialObservation: '',
    turns: commands.map((action, index) =>
      turnRecord(index, action, { observation: '', admissibleActions: [action], generations: [] }),
    ),
    won,
    terminated: won,
    truncated: !won,
  });
}

describe('replaying scripts through the agent loop', () => {
  it("shows each command's prompt exactly as the agent's view would, under the goal given", async () => {
    const tasks = await taskSource.tasks('train', { limit: 3 });
    const scripts = await Promise.all(
      tasks.map(async (task, i) => ({
        task,
        commands: (await taskSource.oracle!(task)).actions,
        goal: i === 2 ? 'put a mug in fridge.' : null,
      })),
    );
    const replays = await replayScripts(agent, vectorEnv(), ALFWORLD_ENV_ID, scripts);
    const env = new AlfworldEnv({ maxSteps: 40 });
    for (const [i, script] of scripts.entries()) {
      let step = await env.reset({ seed: script.task.seed, taskId: script.task.taskId });
      const view = alfworldStateView({ goal: script.goal ?? step.info.task!, observation: step.observation });
      const expected: string[] = [];
      for (const command of script.commands) {
        expected.push(view.prompt());
        step = await env.step(command);
        view.observe(command, step.observation);
      }
      expect(replays[i]!.examples.map((e) => e.prompt)).toEqual(
        expected.map((content) => [{ role: 'user', content }]),
      );
      expect(replays[i]!.examples.map((e) => e.response)).toEqual(script.commands);
      expect(replays[i]!.won).toBe(true);
    }
  });

  it('fails clearly on a command that is not admissible, a script longer than its episode, or a plan request', async () => {
    const [task] = await taskSource.tasks('train', { limit: 1 });
    const oracle = (await taskSource.oracle!(task!)).actions;
    await expect(
      replayScripts(agent, vectorEnv(), ALFWORLD_ENV_ID, [
        { task: task!, commands: [oracle[0]!, 'fly to the moon'], goal: null },
      ]),
    ).rejects.toThrow(/scripted command 2 "fly to the moon" is not admissible/);
    await expect(
      replayScripts(agent, vectorEnv(), ALFWORLD_ENV_ID, [
        { task: task!, commands: [...oracle, 'look'], goal: null },
      ]),
    ).rejects.toMatchObject({
      name: 'ScriptCutShortError',
      message: expect.stringMatching(/ended \(env_done\) after \d+ of its \d+ scripted commands/),
    });
    const planning = createAdaPlanAgent(noPolicy, { view: alfworldStateView });
    await expect(
      replayScripts(planning, vectorEnv(), ALFWORLD_ENV_ID, [{ task: task!, commands: oracle, goal: null }]),
    ).rejects.toThrow(/cannot write a free-text plan/);
  });

  it('writes or provides the plan of the commands for a plan-step agent, and refuses a step the vocabulary lacks', async () => {
    const tasks = await taskSource.tasks('train', { limit: 6 });
    const scripts = await Promise.all(
      tasks.map(async (task) => ({ task, commands: (await taskSource.oracle!(task)).actions, goal: null })),
    );
    const options = { view: alfworldStateView, planSteps: alfworldPlanSteps, contextTokens: 100_000 };
    const writing = createAdaPlanAgent(noPolicy, { ...options, revision: { mode: 'every_turn' } });
    const written = await replayScripts(writing, vectorEnv(), ALFWORLD_ENV_ID, scripts);
    for (const [i, replay] of written.entries()) {
      const plan = alfworldPlanOf(scripts[i]!.commands);
      expect(replay.won).toBe(true);
      expect(replay.examples.filter((e) => e.kind === 'act').map((e) => e.response)).toEqual(
        scripts[i]!.commands,
      );
      // The first plan is written edge by edge: its choices spell the plan's lines, then the end.
      const firstPlan: string[] = [];
      for (const example of replay.examples) {
        if (example.kind === 'act') break;
        firstPlan.push(example.response);
      }
      expect(firstPlan.join('')).toBe(`${plan.join('\n')}\n${PLAN_END}`);
      // Revisions before later commands write the steps still to do.
      expect(replay.examples.filter((e) => e.kind === 'plan').length).toBeGreaterThan(firstPlan.length);
    }
    const following = createAdaPlanAgent(noPolicy, {
      ...options,
      revision: { mode: 'never' },
      planSource: { kind: 'provided', source: 'oracle', provider: async () => [['look']] },
    });
    const followed = await replayScripts(following, vectorEnv(), ALFWORLD_ENV_ID, scripts.slice(0, 2));
    for (const replay of followed) {
      expect(replay.won).toBe(true);
      expect(replay.examples.every((e) => e.kind === 'act')).toBe(true);
      expect(replay.examples[0]!.prompt.at(-1)!.content).toContain('Step 1: ');
    }
    await expect(
      replayScripts(writing, vectorEnv(), ALFWORLD_ENV_ID, [{ ...scripts[0]!, plan: ['fly to the moon'] }]),
    ).rejects.toThrow(/plan step 1 "fly to the moon" is not in the env's plan-step vocabulary/);
  });
});

describe('relabelling episodes for expert iteration', () => {
  it('keeps the shortest shortcut of a won group and the goal a lost group reached', async () => {
    const tasks = await taskSource.tasks('train', { limit: 40 });
    const simple = tasks.find((task) => task.taskType === 'pick_and_place_simple')!;
    const two = tasks.find((task) => task.taskType === 'pick_two_obj_and_place')!;
    const env = new AlfworldEnv({ maxSteps: 40 });
    const oracle = (await taskSource.oracle!(simple)).actions;
    const first = await env.reset({ seed: simple.seed, taskId: simple.taskId });
    const detour = first.admissibleActions.find((a) => a.startsWith('go to ') && a !== oracle[0])!;
    const twoOracle = (await taskSource.oracle!(two)).actions;
    const firstPut = alfworldHindsight.find(twoOracle)!.reachedAfter;
    const episodes = [
      episodeOf(simple, 'won', [detour, ...oracle], true),
      episodeOf(simple, 'won', [detour, oracle[0]!, detour, ...oracle], true),
      // Lost: stopped after putting the first of the two objects away.
      episodeOf(two, 'half', twoOracle.slice(0, firstPut + 1), false),
      episodeOf(simple, 'nothing', [detour, oracle[0]!], false),
    ];
    const report = await relabelEpisodes(episodes, { env, hindsight: alfworldHindsight, rng: createRng(1) });
    expect(report).toMatchObject({
      groups: 3,
      wonGroups: 1,
      hindsightGroups: 1,
      unreachedGroups: 1,
      unreplayableGoals: 0,
    });
    const [won, hindsight] = report.scripts;
    expect(won!.source).toBe('shortcut');
    expect(won!.goal).toBeNull();
    expect(won!.commands.length).toBeLessThanOrEqual(oracle.length);
    expect((await replay(env, simple, won!.commands)).reachedAfter).toBe(won!.commands.length);
    expect(hindsight!.source).toBe('hindsight');
    expect(hindsight!.task.taskId).toBe(two.taskId);
    expect(hindsight!.commands.length).toBeLessThanOrEqual(firstPut);
    expect(hindsight!.goal).toMatch(/^put (a|some) /);

    // The hindsight script renders under its own goal, and the env does not call it a win.
    const [rendered] = await replayScripts(agent, vectorEnv(), ALFWORLD_ENV_ID, [hindsight!]);
    expect(rendered!.examples[0]!.prompt[0]!.content.startsWith(`${hindsight!.goal}\n`)).toBe(true);
    expect(rendered!.won).toBe(false);

    const withoutHindsight = await relabelEpisodes(episodes, { env, rng: createRng(1) });
    expect(withoutHindsight.scripts.map((s) => s.source)).toEqual(['shortcut']);
    expect(withoutHindsight.hindsightGroups).toBe(0);
  });
});
