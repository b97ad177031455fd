// Replays test/fixtures/minigrid-held-and-boxed.jsonl (made by reference/generate-fixtures.ts from
// Minigrid v2.3.1, see test/fixtures/SOURCES.md): start states that hold more than the grid (a key in
// a box, a load in the agent's hands, steps already taken) load and play exactly as Minigrid plays
// them, down to the 7×7 image and a hash of the whole grid after every primitive action; the text
// layer and the env take them too. Needs no Python.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Game, VIEW_SIZE } from '../src/game';
import {
  AgentGymBabyAI,
  createBabyaiEnv,
  type LevelState,
  parseLevelFile,
  parseLevelState,
} from '../src/index';
import { encodeObject, PRIMITIVES, type Primitive } from '../src/world';

const stateSchema = z.strictObject({
  action: z.enum(['left', 'right', 'forward', 'pickup', 'drop', 'toggle', 'done']).nullable(),
  agent_pos: z.tuple([z.number(), z.number()]),
  agent_dir: z.number(),
  carrying: z.tuple([z.number(), z.number(), z.number()]).nullable(),
  image: z.array(z.string()),
  reward: z.number(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  grid_sha1: z.string(),
});
const episodes = readFileSync(join(import.meta.dirname, 'fixtures/minigrid-held-and-boxed.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) =>
    z
      .strictObject({ id: z.string(), start: z.unknown(), states: z.array(stateSchema).min(1) })
      .parse(JSON.parse(line)),
  )
  .map((episode) => ({ ...episode, start: parseLevelState(episode.start, episode.id) }));
const episode = (id: string) => episodes.find((e) => e.id === id)!;

/** Our engine's state in the fixture's shape. */
function stateOf(game: Game, image: Uint8Array) {
  const rows: string[] = [];
  for (let y = 0; y < game.grid.height; y++) {
    const row: string[] = [];
    for (let x = 0; x < game.grid.width; x++) {
      const o = game.grid.get(x, y);
      row.push(o === null ? '100' : encodeObject(o).join(''));
    }
    rows.push(row.join(' '));
  }
  const view: string[] = [];
  for (let j = 0; j < VIEW_SIZE; j++) {
    const row: string[] = [];
    for (let i = 0; i < VIEW_SIZE; i++)
      row.push(image.subarray((i * VIEW_SIZE + j) * 3, (i * VIEW_SIZE + j + 1) * 3).join(''));
    view.push(row.join(' '));
  }
  return {
    agent_pos: [...game.agentPos],
    agent_dir: game.agentDir,
    carrying: game.carrying === null ? null : encodeObject(game.carrying),
    image: view,
    grid_sha1: createHash('sha1').update(rows.join('\n')).digest('hex'),
  };
}

describe('start states with a held object, box contents and steps taken (Minigrid fixtures)', () => {
  it('has the fixture of every new field: a box holding a key, a load, a step count', () => {
    expect(episodes.map((e) => e.id)).toEqual([
      'BabyAI-KeyInBox-v0/1',
      'BabyAI-KeyInBox-v0/2',
      'BabyAI-KeyInBox-v0/3/step_count=300',
      'BabyAI-KeyInBox-v0/4',
      'BabyAI-PutNextS7N4Carrying-v0/1',
      'BabyAI-PutNextS7N4Carrying-v0/2',
      'BabyAI-PutNextS7N4Carrying-v0/3',
    ]);
    expect(episode('BabyAI-KeyInBox-v0/1').start.box_contents).toEqual([{ pos: [10, 12], contains: '500' }]);
    expect(episode('BabyAI-PutNextS7N4Carrying-v0/1').start.carrying).toBe('520');
    expect(episode('BabyAI-KeyInBox-v0/3/step_count=300').start.step_count).toBe(300);
  });

  it('plays every episode as Minigrid did: agent, load, image, grid, reward, terminated, truncated', () => {
    const mismatches: string[] = [];
    let actions = 0;
    for (const { id, start, states } of episodes) {
      const game = new Game(start);
      for (const [k, theirs] of states.entries()) {
        const outcome =
          theirs.action === null
            ? { reward: 0, terminated: false, truncated: false }
            : game.step(PRIMITIVES[theirs.action] as Primitive);
        if (theirs.action !== null) actions += 1;
        const image = theirs.action === null ? game.resetImage() : game.image();
        const ours = { action: theirs.action, ...stateOf(game, image), ...outcome };
        const fields = Object.keys(theirs).filter(
          (field) =>
            JSON.stringify(ours[field as keyof typeof ours]) !==
            JSON.stringify(theirs[field as keyof typeof theirs]),
        );
        if (fields.length > 0) {
          mismatches.push(`${id} state ${k} after ${theirs.action}: ${fields.join(', ')}`);
          break;
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(actions).toBe(101);
  });

  it('wins the planned episodes: the key taken out of the box opens the door; the load lands next to its target', () => {
    for (const id of [
      'BabyAI-KeyInBox-v0/1',
      'BabyAI-KeyInBox-v0/2',
      'BabyAI-PutNextS7N4Carrying-v0/1',
      'BabyAI-PutNextS7N4Carrying-v0/2',
    ]) {
      const last = episode(id).states.at(-1)!;
      expect(last.terminated && last.reward > 0.9, id).toBe(true);
    }
    // 300 steps already taken of 576: the reward counts them.
    const late = episode('BabyAI-KeyInBox-v0/3/step_count=300');
    expect(late.states.at(-1)!.reward).toBeCloseTo(1 - 0.9 * ((300 + 9) / 576), 12);
  });

  it("describes a load at reset as AgentGym's wrapper does: in the hands, and on its old cell in the reset view", () => {
    const game = new AgentGymBabyAI(episode('BabyAI-PutNextS7N4Carrying-v0/1').start);
    expect(game.goal).toBe('put the blue key next to the blue box');
    expect(game.state).toMatch(/You are carrying a blue key\.$/);
    expect(game.state).toContain('There is a blue key 1 ');
    expect(game.availableActions()).toContain('drop');
    // After a command the view is Minigrid's again: the key is in the hands only.
    game.step('turn left');
    expect(game.state).not.toContain('There is a blue key');
  });

  it('plays them through the env option `levels`, with AgentGym data indices of our choosing', async () => {
    const start = episode('BabyAI-PutNextS7N4Carrying-v0/1').start;
    const env = createBabyaiEnv({ levels: [{ ...start, data_idx: 123_456 }] });
    const first = await env.reset({ seed: 0, taskId: 'babyai_123456' });
    expect(first.observation).toMatch(/^Your goal: put the blue key next to the blue box\n/);
    expect(first.observation).toContain('You are carrying a blue key.');
    const line = JSON.stringify(episode('BabyAI-KeyInBox-v0/1').start);
    expect(parseLevelFile(`${line}\n`)[0]!.box_contents).toEqual([{ pos: [10, 12], contains: '500' }]);
  });
});

describe('the start-state format refuses what it does not hold, naming the field', () => {
  const start: LevelState = episode('BabyAI-KeyInBox-v0/1').start;

  it('refuses an unknown field, at the top and inside the instruction', () => {
    expect(() => parseLevelState({ ...start, box_content: start.box_contents })).toThrow(/"box_content"/);
    expect(() => parseLevelState({ ...start, instrs: { ...start.instrs, desk: 1 } })).toThrow(/"desk"/);
    expect(() => parseLevelFile(`${JSON.stringify({ ...start, carried: '500' })}\n`, 'mine.jsonl')).toThrow(
      /mine\.jsonl:1: .*Unrecognized key: "carried"/,
    );
  });

  it('refuses contents of a cell that holds no box, a load the agent cannot hold, a step count past the limit', () => {
    const at = (pos: [number, number]) => new Game({ ...start, box_contents: [{ pos, contains: '500' }] });
    expect(() => at([0, 0])).toThrow(/box_contents\.0\.pos \(0, 0\) holds no box \(a wall\)/);
    expect(() => new Game({ ...start, carrying: '250' })).toThrow(/carrying is a wall/);
    expect(() => new Game({ ...start, carrying: { cell: '500', contains: '600' } })).toThrow(
      /only a box holds/,
    );
    expect(() => parseLevelState({ ...start, step_count: 576 })).toThrow(
      /step_count: must be below max_steps/,
    );
  });

  it('loads a box inside a box, carried or on the grid, and plays what toggling reveals', () => {
    const game = new Game({
      ...start,
      carrying: { cell: '720', contains: { cell: '730', contains: '610' } },
    });
    expect(game.carrying?.contains?.contains?.type).toBe('ball');
  });

  it('binds an empty obj_poss cell only to a carried object the description matches', () => {
    const carrying = episode('BabyAI-PutNextS7N4Carrying-v0/1').start;
    expect(() => new Game({ ...carrying, carrying: null })).toThrow(/obj_poss \(1, 2\) holds no blue key/);
    expect(() => new Game({ ...carrying, carrying: '510' })).toThrow(/nor is the carried object one/);
  });
});
