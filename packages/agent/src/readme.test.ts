import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const root = join(import.meta.dirname, '..');

describe('README', () => {
  it('opens with the snippet that test/readme-snippet.ts runs', async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const snippet = await readFile(join(root, 'test', 'readme-snippet.ts'), 'utf8');
    expect(readme.indexOf(`\`\`\`ts\n${snippet}\`\`\``)).toBeGreaterThan(0);
    expect(readme.indexOf('```ts')).toBe(readme.indexOf(`\`\`\`ts\n${snippet}`));
  });

  it('runs the snippet: 8 episodes and an evaluation report', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../test/readme-snippet');
    expect(log).toHaveBeenCalledTimes(1);
    const [count, successRate, ci95, meanSteps, formatErrorRate] = log.mock.calls[0]!;
    expect(count).toBe(8);
    expect(successRate).toBe(0);
    expect(ci95).toEqual({ low: 0, high: expect.any(Number) });
    expect(meanSteps).toBe(5);
    expect(formatErrorRate).toBe(0);
    log.mockRestore();
  });
});
