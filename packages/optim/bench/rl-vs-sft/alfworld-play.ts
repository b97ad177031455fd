// Playing generated ALFWorld tasks with a small policy: a compact state prompt (task, what is held,
// the receptacles visited, the last command and what it showed), oracle demonstrations rendered in
// that same prompt, and a lock-step rollout loop whose decoding is constrained to the admissible
// commands, so every action is valid and its logprob is exact.
import { EPISODE_FORMAT_VERSION, type Episode, type Policy, type TaskRef, type Turn } from '@pilotrl/core';
import { AlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import type { SftExample } from '@pilotrl/policy-tfjs';

export const taskSource = createGeneratedTaskSource();

/** What the policy sees of an episode so far. */
export class PlayState {
  private holding = 'nothing';
  private readonly visited: string[] = [];
  private lastAction = '';
  private lastObservation = '';

  constructor(private readonly task: string) {}

  /** Records a command and the env's answer to it. */
  observe(action: string, observation: string): void {
    this.lastAction = action;
    this.lastObservation = observation.replace(/^You arrive at loc \d+\. /, '').trim();
    const go = /^go to (.+)$/.exec(action);
    if (go) {
      const seen = this.visited.indexOf(go[1]!);
      if (seen >= 0) this.visited.splice(seen, 1);
      this.visited.push(go[1]!);
    }
    const take = /^take (.+?) from /.exec(action);
    if (take && observation.startsWith('You pick up')) this.holding = take[1]!;
    if (/^put /.test(action) && observation.startsWith('You put')) this.holding = 'nothing';
  }

  /** The prompt: most recent visits last, and at most eight of them, so it stays short. */
  prompt(): string {
    const lines = [
      this.task,
      `holding: ${this.holding}`,
      `visited: ${this.visited.slice(-8).join(', ') || 'none'}`,
    ];
    if (this.lastAction !== '') lines.push(`> ${this.lastAction}`, this.lastObservation);
    return lines.join('\n');
  }
}

/** One (prompt, command) pair per step of the oracle's solution of each task. */
export async function demonstrations(tasks: readonly TaskRef[], maxSteps: number): Promise<SftExample[]> {
  const examples: SftExample[] = [];
  const env = new AlfworldEnv({ maxSteps });
  for (const task of tasks) {
    const solution = await taskSource.oracle!(task);
    const first = await env.reset({ seed: task.seed, taskId: task.taskId });
    const state = new PlayState(first.info.task ?? '');
    for (const action of solution.actions) {
      examples.push({ prompt: [{ role: 'user', content: state.prompt() }], response: action });
      const next = await env.step(action);
      state.observe(action, next.observation);
      if (next.terminated || next.truncated) break;
    }
  }
  return examples;
}

export interface PlayOptions {
  /** Each task is played `groupSize` times (a group for the advantage estimators). */
  groupSize: number;
  /** 0 plays greedily (the most likely whole command). */
  temperature: number;
  maxSteps: number;
  seed: number;
}

/** Plays every task `groupSize` times in lock step and returns the episodes, reward 1 for a win. */
export async function play(
  policy: Policy,
  tasks: readonly TaskRef[],
  options: PlayOptions,
): Promise<Episode[]> {
  const slots = await Promise.all(
    tasks.flatMap((task) =>
      Array.from({ length: options.groupSize }, async (_, sample) => {
        const env = new AlfworldEnv({ maxSteps: options.maxSteps, cacheSize: 1 });
        const first = await env.reset({ seed: task.seed, taskId: task.taskId });
        return {
          env,
          task,
          sample,
          state: new PlayState(first.info.task ?? ''),
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
    const prompts = live.map((slot) => slot.state.prompt());
    const results = await policy.generate(
      live.map((slot, i) => ({
        messages: [{ role: 'user' as const, content: prompts[i]! }],
        choices: slot.actions,
        temperature: options.temperature,
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
        generations: [
          {
            kind: 'act',
            text: result.text,
            tokenIds: [...result.promptTokenIds, ...result.tokenIds],
            lossMask: [
              ...result.promptTokenIds.map(() => 0 as const),
              ...result.tokenIds.map(() => 1 as const),
            ],
            logprobs: [...result.promptTokenIds.map(() => 0), ...result.logprobs],
            policyVersion: result.policyVersion,
            finishReason: result.finishReason,
          },
        ],
        thought: null,
        action: result.text,
        formatError: null,
        envReward: next.reward,
        valid: next.info.valid,
        rewards: {},
      });
      slot.state.observe(result.text, next.observation);
      slot.actions = next.admissibleActions;
      if (next.terminated || next.truncated) {
        slot.done = true;
        slot.won = next.info.won;
        slot.truncated = next.truncated;
        await slot.env.close();
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
