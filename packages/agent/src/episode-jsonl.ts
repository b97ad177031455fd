// Episodes as JSONL: one episode object per line, in core's episode schema, versioned by
// `formatVersion` (EPISODE_FORMAT_VERSION). Reading validates every line and names the line
// of the first problem.
import { createReadStream } from 'node:fs';
import { appendFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { EPISODE_FORMAT_VERSION, type Episode, episodeSchema, ParseError, parseOrThrow } from '@pilotrl/core';

/** One JSON line per episode, each validated before it is written. */
export function episodesToJsonl(episodes: readonly Episode[]): string {
  return episodes
    .map((episode, index) => `${JSON.stringify(parseOrThrow(episodeSchema, episode, `episode ${index}`))}\n`)
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
  const parsed = episodeSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ParseError(source, line, `not a valid episode: ${problems.join('; ')}`);
  }
  return parsed.data;
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
