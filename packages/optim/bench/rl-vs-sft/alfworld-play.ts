// Playing generated ALFWorld tasks with a small policy: a compact state prompt (task, what is held,
// the receptacles visited, the last command and what it showed), demonstrations (the oracle's or a
// searching expert's) rendered in that same prompt, and a lock-step rollout loop whose decoding is
// constrained to the admissible commands, so every action is valid and its logprob is exact.
import { createRng, type Episode, type Policy, type StepResult, type TaskRef } from '@pilotrl/core';
import { AlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import type { SftExample } from '@pilotrl/policy-tfjs';
import { choiceRollout, type EpisodeView } from '../../test/choice-rollout';
import { SearchingExpert } from './searching-expert';

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

/**
 * Who demonstrates: the engine's `oracle` (it knows where everything is and walks straight there) or
 * a `searching` expert that sees only what the player sees and searches in a random order.
 */
export const demonstrators = ['oracle', 'searching'] as const;
export type Demonstrator = (typeof demonstrators)[number];

/** A `--demonstrator` flag's value, checked. */
export function parseDemonstrator(value: string): Demonstrator {
  const known = demonstrators.find((d) => d === value);
  if (known === undefined) throw new Error(`--demonstrator must be one of ${demonstrators.join(', ')}`);
  return known;
}

/**
 * Plays `task` with `act` (undefined ends the episode) and returns one (prompt, command) pair per
 * command, each prompt as the policy would have seen it, and whether the episode was won. The
 * prompts name the task's goal, or `goal` where one is given (a hindsight goal).
 */
export async function playExamples(
  env: AlfworldEnv,
  task: Pick<TaskRef, 'seed' | 'taskId'>,
  act: (step: StepResult, index: number) => string | undefined,
  goal?: string,
): Promise<{ examples: SftExample[]; won: boolean }> {
  let step = await env.reset({ seed: task.seed, taskId: task.taskId });
  const state = new PlayState(goal ?? step.info.task ?? '');
  const examples: SftExample[] = [];
  while (!step.terminated && !step.truncated) {
    const action = act(step, examples.length);
    if (action === undefined) break;
    examples.push({ prompt: [{ role: 'user', content: state.prompt() }], response: action });
    step = await env.step(action);
    state.observe(action, step.observation);
  }
  return { examples, won: step.info.won };
}

/**
 * One (prompt, command) pair per step of the demonstrator's play of each task; the searching
 * expert's episodes count only when won.
 */
export async function demonstrations(
  tasks: readonly TaskRef[],
  maxSteps: number,
  demonstrator: Demonstrator = 'oracle',
): Promise<SftExample[]> {
  const examples: SftExample[] = [];
  const env = new AlfworldEnv({ maxSteps });
  for (const task of tasks) {
    if (demonstrator === 'oracle') {
      const oracle = (await taskSource.oracle!(task)).actions;
      examples.push(...(await playExamples(env, task, (_, index) => oracle[index])).examples);
    } else {
      const rng = createRng(`searching-expert/${task.taskId}/${task.seed}`);
      let expert: SearchingExpert | undefined;
      const played = await playExamples(env, task, (step) => {
        expert ??= new SearchingExpert(step.info.task ?? '', rng);
        return expert.act(step.observation, step.admissibleActions);
      });
      if (played.won) examples.push(...played.examples);
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
