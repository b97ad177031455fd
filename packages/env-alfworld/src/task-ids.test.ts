// Task ids are ids: an env plays generated tasks, or trials inside its data directory, and nothing a
// caller names outside it (a served env hands task ids over from any client).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotFoundError, ParseError } from '@pilotrl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createAlfworldEnv } from './env';

const scratch = mkdtempSync(join(tmpdir(), 'alfworld-ids-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('alfworld task ids', () => {
  it('refuses file paths as task ids when no data directory is set, without reading them', async () => {
    const env = createAlfworldEnv();
    for (const taskId of [
      '/etc/hostname',
      '/proc/self/environ',
      '/dev/zero',
      '../../etc/passwd',
      'x'.repeat(5000),
    ]) {
      const error = await env.reset({ seed: 0, taskId }).catch((caught: unknown) => caught);
      expect(NotFoundError.isInstance(error), taskId.slice(0, 40)).toBe(true);
      expect((error as Error).message).toMatch(/^unknown ALFWorld task id /);
      expect((error as Error).message.length).toBeLessThan(300);
    }
  });

  it('resolves trial ids only inside the data directory: no absolute path, .., or link out of it', async () => {
    const data = join(scratch, 'data');
    mkdirSync(join(data, 'valid_seen'), { recursive: true });
    writeFileSync(join(scratch, 'outside.json'), '{"secret": true}');
    symlinkSync(join(scratch, 'outside.json'), join(data, 'valid_seen', 'link'));
    const env = createAlfworldEnv({ dataDir: data });
    for (const taskId of [
      join(scratch, 'outside.json'),
      '../outside.json',
      'valid_seen/../../outside.json',
      'valid_seen/link',
      'a\0b',
    ]) {
      const error = await env.reset({ seed: 0, taskId }).catch((caught: unknown) => caught);
      expect(NotFoundError.isInstance(error), taskId).toBe(true);
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('refuses a FIFO or a device inside the data directory as not a regular file, at once', async () => {
    const data = join(scratch, 'devices');
    mkdirSync(data, { recursive: true });
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(data, 'fifo')]);
    const env = createAlfworldEnv({ dataDir: '/' });
    const zero = await env.reset({ seed: 0, taskId: 'dev/zero' }).catch((caught: unknown) => caught);
    expect(ParseError.isInstance(zero)).toBe(true);
    expect((zero as Error).message).toMatch(/not a regular file/);
    const inside = createAlfworldEnv({ dataDir: data });
    const fifo = await inside.reset({ seed: 0, taskId: 'fifo' }).catch((caught: unknown) => caught);
    expect((fifo as Error).message).toMatch(/not a regular file/);
  });
});
