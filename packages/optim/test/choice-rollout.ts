// A minimal lock-step rollout loop for the optimizer's tests and benchmarks: each episode's prompt
// comes from a view that tracks what the policy should see, decoding is constrained to the
// admissible commands (so every action is valid and its logprob exact), and a win is reward 1.
// Short prompts keep a small model's learning within a test's or a benchmark's time.
import { toGeneration } from '@pilotrl/agent';
import {
  EPISODE_FORMAT_VERSION,
  type Episode,
  type Policy,
  type StepResult,
  type TaskRef,
  type TextEnv,
  type Turn,
} from '@pilotrl/core';

/** What the policy sees of an episode so far. */
export interface EpisodeView {
  prompt(): string;
  /** Records a command and the env's answer to it. */
  observe(action: string, observation: string): void;
}

export interface ChoiceRolloutOptions {
  createEnv: () => TextEnv;
  /** Each task is reset with its own seed and played `groupSize` times (one group). */
  tasks: readonly Pick<TaskRef, 'taskId' | 'split' | 'seed' | 'taskType'>[];
  groupSize: number;
  /** Base of the sampling seeds. */
  seed: number;
  /** Sampling temperature; 0 is greedy. */
  temperature?: number;
  /** The view of each episode; by default the task sentence and the latest observation. */
  createView?: (first: StepResult) => EpisodeView;
}

function latestObservationView(first: StepResult): EpisodeView {
  const task = first.info.task ?? '';
  let observation = first.observation;
  return {
    prompt: () => `${task}\n${observation}`,
    observe: (_action, next) => {
      observation = next;
    },
  };
}

export async function choiceRollout(policy: Policy, options: ChoiceRolloutOptions): Promise<Episode[]> {
  const createView = options.createView ?? latestObservationView;
  const slots = await Promise.all(
    options.tasks.flatMap((task) =>
      Array.from({ length: options.groupSize }, async (_, sample) => {
        const env = options.createEnv();
        const first = await env.reset({ seed: task.seed, taskId: task.taskId });
        return {
          env,
          task,
          sample,
          view: createView(first),
          goal: first.info.task ?? '',
          initial: first.observation,
          actions: first.admissibleActions,
          turns: [] as Turn[],
          done: false,
          won: false,
          truncated: false,
        };
      }),
    ),
  );
  for (let step = 0; slots.some((slot) => !slot.done); step++) {
    const live = slots.filter((slot) => !slot.done);
    const prompts = live.map((slot) => slot.view.prompt());
    const results = await policy.generate(
      live.map((slot, i) => ({
        messages: [{ role: 'user' as const, content: prompts[i]! }],
        choices: slot.actions,
        temperature: options.temperature ?? 1,
        seed: options.seed * 1_000_003 + slots.indexOf(slot) * 1_009 + step,
      })),
    );
    for (const [i, slot] of live.entries()) {
      const result = results[i]!;
      const next = await slot.env.step(result.text);
      slot.turns.push({
        index: step,
        // The prompt is the state the policy acted from, so the turn-level estimator groups on it.
        observation: prompts[i]!,
        admissibleActions: slot.actions,
        generations: [toGeneration('act', result)],
        thought: null,
        action: result.text,
        formatError: null,
        envReward: next.reward,
        valid: next.info.valid,
        rewards: {},
      });
      slot.view.observe(result.text, next.observation);
      slot.actions = next.admissibleActions;
      if (next.terminated || next.truncated) {
        slot.done = true;
        slot.won = next.info.won;
        slot.truncated = next.truncated;
        await slot.env.close?.();
      }
    }
  }
  return slots.map((slot, index) => ({
    formatVersion: EPISODE_FORMAT_VERSION,
    id: `${slot.task.taskId}/${slot.sample}`,
    envId: slot.env.envId,
    taskId: slot.task.taskId,
    split: slot.task.split,
    seed: index,
    groupId: `${slot.task.split}/${slot.task.taskId}`,
    sampleIndex: slot.sample,
    paradigm: 'act-only',
    task: slot.goal,
    ...(slot.task.taskType !== undefined ? { taskType: slot.task.taskType } : {}),
    initialObservation: slot.initial,
    turns: slot.turns,
    planHistory: [],
    won: slot.won,
    terminated: !slot.truncated,
    truncated: slot.truncated,
    envReturn: slot.turns.reduce((sum, t) => sum + t.envReward, 0),
    rewardComponents: { outcome: slot.won ? 1 : 0 },
    reward: slot.won ? 1 : 0,
    metadata: {},
  }));
}

/** Toy-env tasks by id, reset with their index in the list as seed (as the learning tests use them). */
export const toyTasks = (taskIds: readonly string[]) =>
  taskIds.map((taskId, seed) => ({ taskId, split: 'train', seed }));
