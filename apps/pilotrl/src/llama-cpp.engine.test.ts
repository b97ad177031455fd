// The pilotrl app against a real pretrained model behind a real OpenAI-compatible server:
// llama-cpp-python serving Google's Gemma 3 270M (base model) on the CPU, from the venv of
// packages/llm/reference/setup.sh. The LLM judge scores plans (its invalid answers counted), stage
// 1's LLM plan provider writes plans for ALFWorld tasks (a plan that does not parse is an error
// naming the task, as the provider documents), and `pilotrl eval --base-url` prints a baseline row
// on ALFWorld with its 95% interval. A 270M base model plans and judges badly: the tests assert
// that what it does is counted and reported, not that it is good. Without the venv these tests skip
// loudly, and fail when CI is set.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '@pilotrl/core';
import { createChatClient } from '@pilotrl/llm';
import { createLlmJudge, INVALID_OUTPUT_FLAG } from '@pilotrl/rewards';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type LlamaCppServer,
  llamaCppReference,
  startLlamaCppServer,
} from '../../../tooling/llama-cpp-server';
import { runCli } from './cli';
import { resolveConfig } from './commands/train';
import { runEnvsFor } from './run/run-envs';
import { capturedIo } from './tiny-corridor.testing';
import { llmPlanProvider } from './training/llm-plans';

const reference = llamaCppReference(
  'pilotrl (judge, stage-1 plans, eval) against llama.cpp serving Gemma 3 270M',
);

let server: LlamaCppServer;
let scratch = '';
const client = () => createChatClient({ baseUrl: server.baseUrl, model: server.model, dialect: 'llama-cpp' });

describe.skipIf(!reference.run)('pilotrl with Gemma 3 270M behind llama-cpp-python', () => {
  beforeAll(async () => {
    expect(reference.installed, 'run packages/llm/reference/setup.sh first').toBe(true);
    server = await startLlamaCppServer(reference);
    scratch = mkdtempSync(join(tmpdir(), 'pilotrl-llama-cpp-'));
  });

  // A server that died mid-test is named, with its exit signal and log, beside the refused requests.
  afterEach(() => server?.assertAlive());

  afterAll(async () => {
    await server?.close();
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  it('has the LLM judge score plans, counting the answers it could not parse', async () => {
    const judge = createLlmJudge({
      client: client(),
      onInvalid: 'flag',
      maxInvalidRetries: 1,
      maxTokens: 160,
    });
    const tasks = [
      {
        task: 'put a clean mug in the coffeemachine',
        plan: [
          'Go to countertop 1',
          'Take mug 1',
          'Clean mug 1 with sinkbasin 1',
          'Put mug 1 in coffeemachine 1',
        ],
      },
      {
        task: 'put an apple in the fridge',
        plan: ['Go to diningtable 1', 'Take apple 1', 'Put apple 1 in fridge 1'],
      },
      { task: 'examine a book with the desklamp', plan: ['Look around'] },
    ];
    const results = await judge.judge(tasks);
    const flagged = results.filter((result) => result.flags.includes(INVALID_OUTPUT_FLAG)).length;
    console.info(
      `LLM judge (Gemma 3 270M): ${tasks.length} plans, ${judge.calls} model calls, ${judge.invalidAnswers} answers not valid rubric JSON, ${flagged} plans flagged ${INVALID_OUTPUT_FLAG}`,
    );
    expect(results).toHaveLength(tasks.length);
    for (const result of results) {
      for (const criterion of [result.correctness, result.followability, result.standardization]) {
        expect(criterion.score).toBeGreaterThanOrEqual(1);
        expect(criterion.score).toBeLessThanOrEqual(5);
      }
    }
    // Each plan is asked once, plus once more after each invalid answer but a flagged plan's last.
    expect(judge.calls).toBe(tasks.length + judge.invalidAnswers - flagged);
    expect(judge.invalidAnswers).toBeGreaterThanOrEqual(2 * flagged);
  });

  it("has stage 1's LLM plan provider plan ALFWorld tasks, failing by task on a plan that does not parse", async () => {
    const [alfworld] = runEnvsFor(await resolveConfig('quick'));
    const { provider } = alfworld!;
    const tasks = await provider.tasks.tasks('valid_unseen', { offset: 0, limit: 2 });
    const plans = llmPlanProvider(client(), provider.envId, { maxTokens: 160 });
    const env = provider.createEnv({ maxSteps: 25 });
    let planned = 0;
    const failures: string[] = [];
    for (const task of tasks) {
      const first = await env.reset({ seed: task.seed, taskId: task.taskId });
      try {
        const [plan] = await plans({
          task,
          goal: first.info.task ?? task.description ?? '',
          initialObservation: first.observation,
          admissibleActions: first.admissibleActions,
        });
        expect(plan!.length).toBeGreaterThan(0);
        planned += 1;
      } catch (error) {
        expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
        expect((error as Error).message).toContain(`wrote no valid plan for task ${task.taskId}`);
        failures.push(task.taskId);
      }
    }
    await env.close?.();
    console.info(
      `stage-1 LLM plans (Gemma 3 270M): ${planned} of ${tasks.length} ALFWorld tasks planned, ${failures.length} not parsed (${failures.join(', ') || 'none'})`,
    );
    expect(planned + failures.length).toBe(tasks.length);
  });

  it('gives a baseline row on ALFWorld through pilotrl eval --base-url', async () => {
    // The quick preset's agent (choice actions, plans in plan steps) on short episodes, to bound time.
    const config = { ...(await resolveConfig('quick')), name: 'llama-cpp-baseline' };
    const path = join(scratch, 'baseline.json');
    writeFileSync(path, JSON.stringify({ ...config, env: { ...config.env, maxSteps: 6 } }));
    const io = capturedIo();
    const code = await runCli(
      [
        'eval',
        '--base-url',
        server.baseUrl,
        '--model',
        server.model,
        '--dialect',
        'llama-cpp',
        '--config',
        path,
        '--splits',
        'valid_unseen',
        '--episodes',
        '2',
        '--max-concurrency',
        '2',
      ],
      io,
    );
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    console.info(`pilotrl eval with Gemma 3 270M (2 episodes, 6 steps):\n${io.out()}`);
    expect(io.out()).toMatch(/valid_unseen\s+adaplan\s+\d+\.\d%\s+\[\d+\.\d%, \d+\.\d%\]\s+2\b/);
  });
});
