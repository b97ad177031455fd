// Replays shared/env-data/babyai: every start state of levels.jsonl (900 AgentTraj and AgentEval
// items, Minigrid's own reset) gives AgentGym's exact /reset text, and every AgentTraj trajectory
// (810) gives its exact observations and ends done with a positive reward.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture } from '../../../tooling/env-data';
import {
  AgentGymBabyAI,
  availableActionsSuffix,
  babyaiLevel,
  createBabyaiEnv,
  parseLevelFile,
} from '../src/index';

const levelsFile = fixture('babyai/derived__Farama-Foundation__Minigrid@546c040/levels.jsonl');
const replayFile = fixture('babyai/8023looker__PilotRL@c64319c/replay.jsonl');

describe.skipIf(levelsFile === undefined || replayFile === undefined)('AgentGym BabyAI fixtures', () => {
  // The body runs even when skipped, so it reads nothing without the data.
  const lines = levelsFile === undefined ? '' : readFileSync(levelsFile, 'utf8');
  const items = (lines === '' ? [] : lines.trim().split('\n')).map(
    (line) => JSON.parse(line) as { item_id: string; data_idx: number; reset_observation: string },
  );
  const levels = parseLevelFile(lines);
  const levelOf = new Map(items.map((item, k) => [item.item_id, levels[k]!]));

  it('gives the /reset observation of all 900 items', () => {
    const mismatches = items.filter((item, k) => {
      const game = new AgentGymBabyAI(levels[k]!);
      const text = `Your goal: ${game.goal}\n${game.state}${availableActionsSuffix(game.availableActions())}`;
      return text !== item.reset_observation;
    });
    expect(mismatches.map((item) => item.item_id)).toEqual([]);
  });

  it('replays all 810 AgentTraj trajectories exactly, each ending done with a positive reward', () => {
    const trajectories = readFileSync(replayFile!, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map(
        (line) =>
          JSON.parse(line) as {
            item_id: string;
            initial_observation: string;
            steps: { action: string; observation: string | null }[];
          },
      );
    expect(trajectories).toHaveLength(810);
    const problems: string[] = [];
    let observations = 0;
    for (const trajectory of trajectories) {
      const game = new AgentGymBabyAI(levelOf.get(trajectory.item_id)!);
      if (`Your goal: ${game.goal}\n${game.state}` !== trajectory.initial_observation) {
        problems.push(`${trajectory.item_id}: first observation`);
      }
      let last = { done: false, reward: 0 };
      trajectory.steps.forEach((step, k) => {
        const outcome = game.step(step.action);
        last = outcome;
        if (step.observation === null) return;
        observations += 1;
        if (outcome.text !== step.observation)
          problems.push(`${trajectory.item_id} step ${k}: ${step.action}`);
      });
      if (!last.done || !(last.reward > 0)) problems.push(`${trajectory.item_id}: not won`);
    }
    expect(problems).toEqual([]);
    expect(observations).toBe(3832);
  });

  it('ships the same start states Minigrid gives where the shipped tasks and the fixture overlap', () => {
    const shipped = new Set<number>();
    for (const split of ['train', 'valid_seen'] as const) {
      const plan = { train: 45, valid_seen: 50 }[split];
      for (const item of items) if (Math.floor(item.data_idx / 40) < plan) shipped.add(item.data_idx);
    }
    expect(shipped.size).toBeGreaterThan(50);
    for (const dataIdx of shipped) {
      const { level, seed, mission, grid_rows, agent_pos, agent_dir, max_steps, instrs } =
        levels[items.findIndex((item) => item.data_idx === dataIdx)]!;
      expect(babyaiLevel(dataIdx)).toMatchObject({
        level,
        seed,
        mission,
        grid_rows,
        agent_pos,
        agent_dir,
        max_steps,
        instrs,
      });
    }
  });

  it('plays an AgentEval item from levels.jsonl through the env option `levels`', async () => {
    const k = items.findIndex((item) => item.item_id.startsWith('babyai_') && item.data_idx > 12000);
    const env = createBabyaiEnv({ levels: [{ ...levels[k]!, data_idx: items[k]!.data_idx }] });
    const result = await env.reset({ seed: 0, taskId: items[k]!.item_id });
    expect(result.observation).toBe(items[k]!.reset_observation);
  });
});
