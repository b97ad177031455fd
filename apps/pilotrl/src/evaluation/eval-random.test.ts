import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { capturedIo } from '../tiny-corridor.testing';

const randomEval = async (seeds: number, out: string) => {
  const io = capturedIo();
  const code = await runCli(
    [
      'eval',
      ...['--config', 'textcraft-quick', '--random', String(seeds)],
      ...['--episodes', '8', '--splits', 'valid_unseen', '--out', out],
    ],
    io,
  );
  return { code, io };
};

describe('pilotrl eval --random', () => {
  it('plays every task once per seed with a uniformly random pick among the offered commands, pooled in one row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-eval-random-'));
    const { code, io } = await randomEval(3, join(dir, 'three.jsonl'));
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const episodes = readFileSync(join(dir, 'three.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(episodes).toHaveLength(24);
    expect(new Set(episodes.map((episode) => episode.id)).size).toBe(24);
    const byTask = new Map<string, string[][]>();
    for (const episode of episodes) {
      const actions = episode.turns.map((turn: { action: string }) => turn.action);
      byTask.set(episode.taskId, [...(byTask.get(episode.taskId) ?? []), actions]);
    }
    expect(byTask.size).toBe(8);
    // Each task is played three times, and the seeds play it differently.
    for (const plays of byTask.values()) expect(plays).toHaveLength(3);
    const distinct = [...byTask.values()].filter((plays) => new Set(plays.map((p) => p.join('|'))).size > 1);
    expect(distinct.length).toBeGreaterThan(4);
    const won = episodes.filter((episode) => episode.won).length;
    const row = /valid_unseen\s+adaplan\s+(\d+\.\d)%\s+\[[^\]]+\]\s+(\d+)/.exec(io.out());
    expect(row?.slice(1)).toEqual([((100 * won) / 24).toFixed(1), '24']);
    // The same seeds play the same episodes.
    const again = await randomEval(3, join(dir, 'again.jsonl'));
    expect(again.io.out()).toBe(io.out());
  });

  it('is refused beside a model to evaluate', async () => {
    const io = capturedIo();
    const code = await runCli(
      ['eval', '--random', '2', '--checkpoint', 'runs/x', '--search', 'best-of-n'],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toBe(
      'pilotrl eval: pilotrl eval --random plays a random policy, not a model: drop --checkpoint and --search\n',
    );
  });
});
