// Playing generated ALFWorld tasks with a small policy: a compact state prompt (task, what is held,
// the receptacles visited, the last command and what it showed), oracle demonstrations rendered in
// that same prompt, and a lock-step rollout loop whose decoding is constrained to the admissible
// commands, so every action is valid and its logprob is exact.
import type { Episode, Policy, TaskRef } from '@pilotrl/core';
import { AlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import type { SftExample } from '@pilotrl/policy-tfjs';
import { choiceRollout, type EpisodeView } from '../../test/choice-rollout';

export const taskSource = createGeneratedTaskSource();

/** What the policy sees of an episode so far. */
export class PlayState implements EpisodeView {
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
export function play(policy: Policy, tasks: readonly TaskRef[], options: PlayOptions): Promise<Episode[]> {
  return choiceRollout(policy, {
    createEnv: () => new AlfworldEnv({ maxSteps: options.maxSteps, cacheSize: 1 }),
    tasks,
    groupSize: options.groupSize,
    seed: options.seed,
    temperature: options.temperature,
    createView: (first) => new PlayState(first.info.task ?? ''),
  });
}
