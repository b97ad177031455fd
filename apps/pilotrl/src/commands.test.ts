import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corridorTasks } from '@pilotrl/env-testkit';
import { createChatClient } from '@pilotrl/llm';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli';
import { serve } from './commands/serve';
import { parseConfig } from './config/curriculum-config';
import { startRun } from './run/run-start';
import { capturedIo, oneJointStage } from './tiny-corridor.testing';

const tinyConfig = {
  name: 'commands-test',
  env: { id: 'testkit/corridor', maxSteps: 4 },
  policy: { size: 'tiny', tokenizerCorpusTasks: 5, vocabSize: 340, contextLength: 384 },
  agent: {
    prompt: 'compact',
    planRevision: 'never',
    historyWindow: 1,
    maxPlanTokens: 16,
    maxActionTokens: 12,
  },
  stages: [oneJointStage],
  eval: { episodes: 3, splits: ['valid_seen', 'valid_unseen'] },
} as const;

let checkpoint: string;
let configPath: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pilotrl-commands-'));
  checkpoint = join(dir, 'policy');
  const { policy } = await startRun(parseConfig(tinyConfig));
  await policy.saveState(checkpoint);
  configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(tinyConfig));
});

describe('pilotrl play', () => {
  it('shows the admissible commands and plays numbers or typed commands from stdin to a win', async () => {
    const [task] = await corridorTasks.tasks('valid_seen', { offset: 0, limit: 1 });
    const solution = await corridorTasks.oracle(task!);
    const io = capturedIo(
      solution.actions.map((action, i) =>
        i === 0 ? action : String(['look', 'stop', 'go west', 'go east'].indexOf(action) + 1),
      ),
    );
    const code = await runCli(
      ['play', '--env', 'testkit/corridor', '--split', 'valid_seen', '--task', '0'],
      io,
    );
    expect(io.out()).toContain('Admissible commands:\n  1. look\n  2. stop');
    expect(io.out()).toContain(`You won after ${solution.actions.length} steps.`);
    expect(code).toBe(0);
  });

  it('stops on quit', async () => {
    const io = capturedIo(['look', 'quit']);
    expect(await runCli(['play', '--env', 'testkit/corridor'], io)).toBe(0);
    expect(io.out()).toContain('Stopped after 1 steps.');
  });
});

describe('pilotrl eval', () => {
  it('evaluates a checkpoint on valid_seen and valid_unseen with 95% intervals per task type', async () => {
    const io = capturedIo();
    const code = await runCli(
      [
        'eval',
        ...['--checkpoint', checkpoint, '--config', configPath, '--paradigm', 'react', '--episodes', '3'],
        ...['--backend', 'wasm'],
      ],
      io,
    );
    expect(io.err()).toBe('pilotrl: backend wasm (1 thread)\n');
    expect(code).toBe(0);
    expect(io.out()).toMatch(/valid_seen\s+react\s+\d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+3/);
    expect(io.out()).toMatch(/valid_unseen\s+react/);
    expect(io.out()).toMatch(/\n {2}corridor\s+\d+\.\d%/);
  });

  it('names the backend flag and the allowed names when the name is wrong', async () => {
    const io = capturedIo();
    const code = await runCli(['eval', '--checkpoint', checkpoint, '--backend', 'gpu'], io);
    expect(code).not.toBe(0);
    expect(io.err()).toContain(
      'unknown tfjs backend "gpu" (from --backend); use auto, tensorflow-gpu, tensorflow, wasm, cpu',
    );
  });
});

describe('pilotrl serve', () => {
  it('serves a checkpoint behind the OpenAI-compatible chat-completions API', async () => {
    const io = capturedIo();
    const server = await serve({ checkpoint, port: 0, host: '127.0.0.1', modelName: 'tiny' }, io);
    try {
      const client = createChatClient({ baseUrl: server.url, model: 'tiny', dialect: 'vllm' });
      expect(await client.listModels()).toEqual(['tiny']);
      const [result] = await client.generate([
        { messages: [{ role: 'user', content: 'Act:' }], maxTokens: 5, seed: 1 },
      ]);
      expect(result!.tokenIds.length).toBeGreaterThan(0);
      expect(result!.tokenIds.length).toBeLessThanOrEqual(5);
      // The same server as a remote model for `pilotrl eval`.
      const evalIo = capturedIo();
      const code = await runCli(
        [
          'eval',
          '--base-url',
          server.url,
          '--model',
          'tiny',
          '--config',
          configPath,
          '--episodes',
          '2',
          '--splits',
          'valid_unseen',
        ],
        evalIo,
      );
      expect(evalIo.err()).toBe('');
      expect(code).toBe(0);
      expect(evalIo.out()).toMatch(/valid_unseen\s+adaplan\s+\d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+2/);
    } finally {
      await server.close();
    }
  });
});

describe('pilotrl command line', () => {
  it('reports an invalid config with the key and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-cli-'));
    const path = join(dir, 'bad.yaml');
    writeFileSync(
      path,
      'stages:\n  - kind: joint\n    iterations: 1\n    tasksPerIteration: 1\n    groupSize: 1\n    learningRate: 0.1\n    rewards: { outcome: 1 }\n',
    );
    const io = capturedIo();
    expect(await runCli(['train', '--config', path], io)).toBe(1);
    expect(io.err()).toContain('stages.0.groupSize: estimator "grpo" compares samples in a group');
    const unknown = capturedIo();
    expect(await runCli(['train', '--config', 'fastest'], unknown)).toBe(1);
    expect(unknown.err()).toContain('Unknown preset "fastest"');
    const usage = capturedIo();
    expect(await runCli(['frobnicate'], usage)).toBe(1);
    expect(usage.err()).toBe("pilotrl: unknown command 'frobnicate'; see pilotrl --help\n");
  });

  it('answers ordinary mistakes with one line, no stack trace', async () => {
    const mistakes: [string[], string][] = [
      [['train'], 'pilotrl train: pilotrl train needs --config <file|preset> or --resume <run-dir>\n'],
      [
        ['train', '--config', 'quick', '--resume', 'runs/x'],
        'pilotrl train: --resume continues runs/x with the config it was started with; drop --config (or give --out for a new run)\n',
      ],
      [
        ['eval'],
        'pilotrl eval: pilotrl eval needs --checkpoint <dir>, --base-url <url> --model <name>, or --random <seeds>\n',
      ],
      [
        ['eval', '--base-url', 'http://127.0.0.1:1/v1'],
        'pilotrl eval: pilotrl eval --base-url needs --model <name>\n',
      ],
      [
        ['eval', '--episodes', '0'],
        'pilotrl eval: --episodes must be an integer from 1 to 100000, got "0"\n',
      ],
      [
        ['serve', '--checkpoint', 'x', '--port', '99999'],
        'pilotrl serve: --port must be an integer from 0 to 65535, got "99999"\n',
      ],
    ];
    for (const [args, message] of mistakes) {
      const io = capturedIo();
      expect(await runCli(args, io), args.join(' ')).toBe(1);
      expect(io.err()).toBe(message);
    }
  });
});
