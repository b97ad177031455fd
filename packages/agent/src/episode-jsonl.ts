// Episodes as JSONL: one episode object per line, in core's episode schema, versioned by
// `formatVersion` (EPISODE_FORMAT_VERSION). Reading and writing validate every episode; errors
// name the line of the first problem.
import { createReadStream } from 'node:fs';
import { appendFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import {
  EPISODE_FORMAT_VERSION,
  type Episode,
  episodeSchema,
  type Generation,
  InvalidArgumentError,
  ParseError,
} from '@pilotrl/core';

type TokenArrays = Pick<Generation, 'tokenIds' | 'lossMask' | 'logprobs'>;

const isTokenId = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
const isMaskBit = (value: unknown) => value === 0 || value === 1;

/** Checks one generation's token arrays by hand; null when they are fine. */
function tokenArrayProblem(generation: Record<string, unknown>): string | null {
  const { tokenIds, lossMask, logprobs } = generation;
  if (!Array.isArray(tokenIds) || !tokenIds.every(isTokenId))
    return 'tokenIds: must be non-negative integers';
  if (!Array.isArray(lossMask) || !lossMask.every(isMaskBit)) return 'lossMask: must be 0 or 1';
  if (!Array.isArray(logprobs) || !logprobs.every(Number.isFinite)) return 'logprobs: must be finite numbers';
  if (lossMask.length !== tokenIds.length || logprobs.length !== tokenIds.length) {
    return 'tokenIds, lossMask and logprobs must have the same length';
  }
  return null;
}

/**
 * Validates an episode against core's schema. The per-token arrays, which make up most of an
 * episode, are checked by plain loops with the same rules and kept aside while the schema checks
 * everything else: the same verdict, many times faster than a schema walk over every number.
 */
export function validateEpisode(
  value: unknown,
): { ok: true; episode: Episode } | { ok: false; problems: string[] } {
  const kept: TokenArrays[][] = [];
  let light = value;
  const turns = (value as { turns?: unknown } | null)?.turns;
  if (Array.isArray(turns)) {
    const lightTurns: unknown[] = [];
    for (const [turnIndex, turn] of turns.entries()) {
      const generations = (turn as { generations?: unknown } | null)?.generations;
      if (!Array.isArray(generations)) {
        lightTurns.push(turn);
        kept.push([]);
        continue;
      }
      const arrays: TokenArrays[] = [];
      const lightGenerations: unknown[] = [];
      for (const [generationIndex, generation] of generations.entries()) {
        if (typeof generation !== 'object' || generation === null) {
          lightGenerations.push(generation);
          continue;
        }
        const problem = tokenArrayProblem(generation as Record<string, unknown>);
        if (problem !== null) {
          return { ok: false, problems: [`turns.${turnIndex}.generations.${generationIndex}.${problem}`] };
        }
        arrays.push(generation as TokenArrays);
        lightGenerations.push({ ...generation, tokenIds: [], lossMask: [], logprobs: [] });
      }
      kept.push(arrays);
      lightTurns.push({ ...turn, generations: lightGenerations });
    }
    light = { ...(value as object), turns: lightTurns };
  }
  const parsed = episodeSchema.safeParse(light);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    };
  }
  for (const [turnIndex, turn] of parsed.data.turns.entries()) {
    for (const [generationIndex, generation] of turn.generations.entries()) {
      const arrays = kept[turnIndex]![generationIndex]!;
      generation.tokenIds = [...arrays.tokenIds];
      generation.lossMask = [...arrays.lossMask];
      generation.logprobs = [...arrays.logprobs];
    }
  }
  return { ok: true, episode: parsed.data };
}

/** One JSON line per episode, each validated before it is written. */
export function episodesToJsonl(episodes: readonly Episode[]): string {
  return episodes
    .map((episode, index) => {
      const checked = validateEpisode(episode);
      if (!checked.ok) {
        throw new InvalidArgumentError(
          `Invalid episode ${index} (${episode.id}):\n  ${checked.problems.join('\n  ')}`,
        );
      }
      return `${JSON.stringify(episode)}\n`;
    })
    .join('');
}

/** Validates one line; `source` and `line` name it in errors. Blank lines give null. */
export function parseEpisodeLine(text: string, source: string, line: number): Episode | null {
  if (text.trim().length === 0) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ParseError(source, line, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const version = (value as { formatVersion?: unknown } | null)?.formatVersion;
  if (version !== EPISODE_FORMAT_VERSION) {
    throw new ParseError(
      source,
      line,
      `episode format version ${JSON.stringify(version)} is not supported; this reader reads version ${EPISODE_FORMAT_VERSION}`,
    );
  }
  const checked = validateEpisode(value);
  if (!checked.ok)
    throw new ParseError(source, line, `not a valid episode: ${checked.problems.slice(0, 5).join('; ')}`);
  return checked.episode;
}

/** Parses JSONL text; `source` (a file name) appears in errors with the line number. */
export function parseEpisodesJsonl(text: string, source = '<jsonl>'): Episode[] {
  const episodes: Episode[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    const episode = parseEpisodeLine(line, source, index + 1);
    if (episode !== null) episodes.push(episode);
  }
  return episodes;
}

/** Streams episodes from a JSONL file, one line at a time. */
export async function* iterateEpisodesJsonl(path: string): AsyncGenerator<Episode> {
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    const episode = parseEpisodeLine(line, path, number);
    if (episode !== null) yield episode;
  }
}

export async function readEpisodesJsonl(path: string): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for await (const episode of iterateEpisodesJsonl(path)) episodes.push(episode);
  return episodes;
}

/**
 * Writes episodes to `path`. By default the file is replaced atomically (written beside it, then
 * renamed); with `append` the lines are added to the end.
 */
export async function writeEpisodesJsonl(
  path: string,
  episodes: readonly Episode[],
  options: { append?: boolean } = {},
): Promise<void> {
  const text = episodesToJsonl(episodes);
  await mkdir(dirname(path), { recursive: true });
  if (options.append) {
    await appendFile(path, text, 'utf8');
    return;
  }
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, 'utf8');
  await rename(temporary, path);
}
