import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EPISODE_FORMAT_VERSION, episodeSchema, ParseError } from '@pilotrl/core';
import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpert } from '../test/expert-policy';
import { createAdaPlanAgent } from './agent';
import {
  episodesToJsonl,
  iterateEpisodesJsonl,
  parseEpisodesJsonl,
  readEpisodesJsonl,
  validateEpisode,
  writeEpisodesJsonl,
} from './episode-jsonl';
import { rollout } from './rollout';
import { createVectorEnv } from './vector-env';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-jsonl-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sampleEpisodes() {
  const tasks = await corridorTasks.tasks('train', { limit: 2 });
  const expert = await createExpert(corridorTasks, createCorridorEnv, tasks);
  return rollout(createAdaPlanAgent(expert.policy), createVectorEnv(createCorridorEnv, { size: 4 }), {
    envId: CORRIDOR_ENV_ID,
    tasks,
    groupSize: 2,
  });
}

describe('episode JSONL', () => {
  it('round-trips episodes through a file, token for token', async () => {
    const episodes = await sampleEpisodes();
    const path = join(dir, 'nested', 'episodes.jsonl');
    await writeEpisodesJsonl(path, episodes);
    expect(await readEpisodesJsonl(path)).toEqual(episodes);
    const text = await readFile(path, 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(4);
    expect(JSON.parse(text.split('\n')[0]!).formatVersion).toBe(EPISODE_FORMAT_VERSION);
  });

  it('appends and streams', async () => {
    const episodes = await sampleEpisodes();
    const path = join(dir, 'appended.jsonl');
    await writeEpisodesJsonl(path, episodes.slice(0, 1));
    await writeEpisodesJsonl(path, episodes.slice(1), { append: true });
    const streamed = [];
    for await (const episode of iterateEpisodesJsonl(path)) streamed.push(episode.id);
    expect(streamed).toEqual(episodes.map((episode) => episode.id));
  });

  it('names the file and line of a broken record', async () => {
    const [first, second] = await sampleEpisodes();
    const broken = {
      ...second!,
      turns: [{ ...second!.turns[0]!, lossMaskMissing: true, generations: 'none' }],
    };
    const path = join(dir, 'broken.jsonl');
    await writeFile(path, `${JSON.stringify(first)}\n\n${JSON.stringify(broken)}\n`);
    const error = await readEpisodesJsonl(path).catch((caught: unknown) => caught);
    expect(ParseError.isInstance(error)).toBe(true);
    expect((error as ParseError).line).toBe(3);
    expect((error as Error).message).toContain(`${path}:3`);
    expect((error as Error).message).toContain('turns.0.generations');
  });

  it('rejects bad JSON and other format versions with the line number', () => {
    expect(() => parseEpisodesJsonl('{"formatVersion": 1,', 'runs/a.jsonl')).toThrow(
      /runs\/a\.jsonl:1: not valid JSON/,
    );
    expect(() => parseEpisodesJsonl('\n{"formatVersion": 2}\n', 'b.jsonl')).toThrow(
      /b\.jsonl:2: episode format version 2 is not supported/,
    );
  });

  it('judges token arrays exactly as the core schema does', async () => {
    const [episode] = await sampleEpisodes();
    const spoil = (edit: (generation: Record<string, unknown>) => void) => {
      const copy = structuredClone(episode!);
      edit(copy.turns[1]!.generations[0] as unknown as Record<string, unknown>);
      return copy;
    };
    const spoiled = [
      spoil((g) => ((g.tokenIds as number[])[3] = -1)),
      spoil((g) => ((g.tokenIds as number[])[3] = 1.5)),
      spoil((g) => ((g.lossMask as number[])[0] = 2)),
      spoil((g) => ((g.logprobs as number[])[0] = Number.NaN)),
      spoil((g) => (g.logprobs as number[]).push(0)),
      spoil((g) => (g.tokenIds = 'abc')),
    ];
    for (const bad of spoiled) {
      expect(episodeSchema.safeParse(bad).success).toBe(false);
      const checked = validateEpisode(bad);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.problems[0]).toMatch(/^turns\.1\.generations\.0\./);
    }
    const good = validateEpisode(structuredClone(episode!));
    expect(good).toEqual({ ok: true, episode: episodeSchema.parse(episode) });
  });

  it('refuses to write an invalid episode', async () => {
    const [episode] = await sampleEpisodes();
    expect(() => episodesToJsonl([{ ...episode!, id: '' }])).toThrow(/episode 0/);
  });
});
