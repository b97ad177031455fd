// SFT teaches: `trainSft` on oracle demonstrations of the testkit recipe env, on the in-process tfjs
// policy, then greedy play constrained to the admissible actions on held-out tasks.
import type { ChatMessage, TaskRef } from '@pilotrl/core';
import { createRecipeEnv, recipeTasks } from '@pilotrl/env-testkit';
import { type SftExample, sftDatum, TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { trainSft } from './train-sft';

// Short prompts train faster: the actions so far, then the task (next to the reply, where the
// ingredient names are easiest to copy from).
const promptOf = (task: string, done: readonly string[]): ChatMessage[] => [
  {
    role: 'user',
    content: `done: ${done.join(', ')}\n${task.replace('Your task is to: ', '').replace(' in the bowl', '')}`,
  },
];

async function demonstrations(tasks: readonly TaskRef[]): Promise<SftExample[]> {
  const examples: SftExample[] = [];
  for (const task of tasks) {
    const { actions } = await recipeTasks.oracle(task);
    actions.forEach((action, step) => {
      examples.push({ prompt: promptOf(task.description!, actions.slice(0, step)), response: action });
    });
  }
  return examples;
}

async function successRate(policy: TfjsPolicy, tasks: readonly TaskRef[]): Promise<number> {
  const envs = tasks.map(() => createRecipeEnv({ maxSteps: 8 }));
  const states = await Promise.all(
    envs.map((env, i) => env.reset({ seed: tasks[i]!.seed, taskId: tasks[i]!.taskId })),
  );
  const done = tasks.map(() => [] as string[]);
  const won = tasks.map(() => false);
  const live = new Set(tasks.keys());
  while (live.size > 0) {
    const ids = [...live];
    const results = await policy.sampler().generate(
      ids.map((i) => ({
        messages: promptOf(tasks[i]!.description!, done[i]!),
        choices: states[i]!.admissibleActions,
        temperature: 0,
      })),
    );
    for (const [k, i] of ids.entries()) {
      const action = results[k]!.text;
      done[i]!.push(action);
      states[i] = await envs[i]!.step(action);
      if (states[i]!.terminated || states[i]!.truncated) {
        won[i] = states[i]!.info.won;
        live.delete(i);
      }
    }
  }
  return won.filter(Boolean).length / tasks.length;
}

describe('trainSft', () => {
  it('reaches at least 95% success on held-out recipe tasks after SFT on oracle demonstrations', async () => {
    const train = await recipeTasks.tasks('train', { limit: 400 });
    const heldOut = await recipeTasks.tasks('valid_seen', { limit: 60 });
    const examples = await demonstrations(train);
    const corpus = examples.map((e) => `${(e.prompt as ChatMessage[])[0]!.content} ${e.response}`);
    const tokenizer = Tokenizer.train(corpus, { vocabSize: 400 });
    const policy = await TfjsPolicy.create({
      tokenizer,
      model: { dModel: 64, nLayers: 2, nHeads: 4, contextLength: 96, seed: 1 },
    });
    const before = await successRate(policy, heldOut);
    const datums = examples.map((example) => sftDatum(tokenizer, example));
    const report = await trainSft(policy, datums, {
      steps: 400,
      batchSize: 16,
      // At 1e-2 some seeds stall on a plateau (loss ~0.35) on one backend and not the other;
      // 5e-3 converges for every seed tried on both.
      learningRate: 5e-3,
      seed: 2,
    });
    const after = await successRate(policy, heldOut);
    expect(report.losses.at(-1)!).toBeLessThan(report.losses[0]! / 10);
    expect(before).toBeLessThan(0.5);
    expect(after).toBeGreaterThanOrEqual(0.95);
    policy.dispose();
  }, 300_000);
});
