// Demonstrations an agent can imitate from what it sees. The oracle plans on the whole game state
// and walks straight to the receptacle that holds the object, which no observation explains. The
// searcher carries out the oracle's plan (its take, treat, put and lamp steps) as an agent without
// that knowledge would: it looks in the receptacles that can hold the object (opening closed ones)
// until one shows it, goes back to where it saw one before when it needs another, and only then
// takes, treats and puts it as the plan says.
import {
  createRng,
  type DemonstrateOptions,
  type Demonstrator,
  hashString,
  type OracleSolution,
  type TaskRef,
  type TextEnv,
} from '@pilotrl/core';
import { alfworldPlanOf, alfworldPlanSteps, listedInstances, literal, typeOf } from './plan-steps';
import { canContain, sceneryPlaces } from './vocabulary';

/** Receptacle type → the object types it may hold, all in the lower case the game text uses. */
const holds = new Map<string, Set<string>>();
for (const [receptacle, objects] of Object.entries(canContain)) {
  holds.set(receptacle.toLowerCase(), new Set(objects.map((o) => o.toLowerCase())));
}
for (const [object, receptacles] of Object.entries(sceneryPlaces)) {
  for (const receptacle of receptacles) {
    const key = receptacle.toLowerCase();
    if (!holds.has(key)) holds.set(key, new Set());
    holds.get(key)!.add(object.toLowerCase());
  }
}

export interface SearcherOptions {
  /** The most commands a demonstration may take; a longer search gives no demonstration. */
  maxSteps?: number;
}

const instanceNumber = (instance: string) => Number(/ (\d+)$/.exec(instance)?.[1] ?? 0);
const byNumberThenName = (a: string, b: string) =>
  instanceNumber(a) - instanceNumber(b) || (a < b ? -1 : a > b ? 1 : 0);

/** What the searcher knows at a point of its play: only what it has seen. */
class SearchState {
  at: string | undefined;
  /** Where each object instance was last seen. */
  readonly seen = new Map<string, string>();
  /** Instances already put where the plan wants them: never taken again. */
  readonly placed = new Set<string>();
  /** Receptacles looked into while searching for the current step. */
  searched = new Set<string>();

  constructor(readonly receptacles: readonly string[]) {}

  observe(action: string, observation: string): void {
    const go = /^go to (.+)$/.exec(action);
    if (go && observation.startsWith('You arrive')) this.at = go[1]!;
    const take = /^take (.+?) from /.exec(action);
    if (take && observation.startsWith('You pick up')) this.seen.delete(take[1]!);
    const put = /^(?:put (.+?) in\/on|move (.+?) to) (.+)$/.exec(action);
    if (put && /^You (put|move) /.test(observation)) {
      const instance = put[1] ?? put[2]!;
      this.seen.set(instance, put[3]!);
      this.placed.add(instance);
    }
    if (this.at !== undefined) {
      for (const instance of listedInstances(observation)) this.seen.set(instance, this.at);
    }
  }

  /**
   * The next receptacle to look into for an object of `type`, among those `reachable`: likely
   * places first, each group by instance number, then by name ("cabinet 1", "countertop 1",
   * "cabinet 2"). Not the order the room lists them: an agent's prompt may not show the listing, and
   * an order it cannot see is one a policy cannot imitate.
   */
  nextPlace(type: string, reachable: (receptacle: string) => boolean): string | undefined {
    if (this.at !== undefined) this.searched.add(this.at);
    const unsearched = this.receptacles
      .filter((r) => !this.searched.has(r) && reachable(r))
      .sort(byNumberThenName);
    const likely = unsearched.filter((r) => holds.get(typeOf(r))?.has(type) ?? false);
    return likely[0] ?? unsearched[0];
  }
}

/** The command that moves `step` on from `state`, or undefined when the searcher is stuck. */
function nextCommand(step: string, state: SearchState, admissible: readonly string[]): string | undefined {
  const at = state.at;
  const find = (pattern: RegExp) => admissible.find((command) => pattern.test(command));
  // "go to" a receptacle at the spot the agent stands on is not admissible (it does nothing).
  const reachable = (receptacle: string) => admissible.includes(`go to ${receptacle}`);
  // Objects to pick up (take) or switch on (use) must be found first.
  const fetch = /^(take|use) (\S+)$/.exec(step);
  if (fetch) {
    const [, verb, type] = fetch as unknown as [string, 'take' | 'use', string];
    const pattern =
      verb === 'take'
        ? new RegExp(`^take (${literal(type)} \\d+) from `)
        : new RegExp(`^use (${literal(type)} \\d+)$`);
    const here = admissible.find((command) => {
      const match = pattern.exec(command);
      return match !== null && !state.placed.has(match[1]!);
    });
    if (here !== undefined) return here;
    if (at !== undefined && admissible.includes(`open ${at}`)) return `open ${at}`;
    const known = [...state.seen].find(
      ([instance, place]) => typeOf(instance) === type && !state.placed.has(instance) && reachable(place),
    );
    const place = known?.[1] ?? state.nextPlace(type, reachable);
    return place === undefined ? undefined : `go to ${place}`;
  }
  const treat = /^(heat|cool|clean) (\S+) with (.+)$/.exec(step);
  const put = /^put (\S+) in (.+)$/.exec(step);
  const [command, place] = treat
    ? [find(new RegExp(`^${treat[1]} ${literal(treat[2]!)} \\d+ with ${literal(treat[3]!)}$`)), treat[3]!]
    : put
      ? [
          find(
            new RegExp(
              `^(put ${literal(put[1]!)} \\d+ in/on|move ${literal(put[1]!)} \\d+ to) ${literal(put[2]!)}$`,
            ),
          ),
          put[2]!,
        ]
      : [undefined, undefined];
  if (place === undefined) return undefined;
  if (command !== undefined) return command;
  if (at !== place && reachable(place)) return `go to ${place}`;
  return admissible.includes(`open ${place}`) ? `open ${place}` : undefined;
}

/** The oracle's plan or one of its alternatives, drawn from the task's seed. */
function drawPlan(task: TaskRef, oraclePlan: string[], opening: string): string[] {
  // ALFWorld's opening observation states the goal.
  const alternatives = alfworldPlanSteps.alternatives!(oraclePlan, {
    goal: opening,
    observations: [opening],
  });
  const plans = [oraclePlan, ...alternatives];
  const rng = createRng(hashString(`${task.taskId}/${task.seed}/demonstrated plan`));
  return plans[rng.int(plans.length)]!;
}

/**
 * ALFWorld's searching demonstrator: `createEnv` gives the private env it plays on. A solution it
 * cannot carry out within `maxSteps` (default 50) gives undefined.
 */
export function createAlfworldSearcher(
  createEnv: () => TextEnv,
  options: SearcherOptions = {},
): Demonstrator {
  const maxSteps = options.maxSteps ?? 50;
  return {
    async demonstrate(
      task: TaskRef,
      solution: OracleSolution,
      demonstrateOptions: DemonstrateOptions = {},
    ): Promise<OracleSolution | undefined> {
      const oraclePlan = alfworldPlanOf(solution.actions);
      if (oraclePlan.length === 0) return undefined;
      const env = createEnv();
      try {
        let result = await env.reset({ seed: task.seed, taskId: task.taskId });
        const plan = demonstrateOptions.alternativePlans
          ? drawPlan(task, oraclePlan, result.observation)
          : oraclePlan;
        const state = new SearchState([...new Set(listedInstances(result.observation))]);
        const actions: string[] = [];
        for (const step of plan) {
          state.searched = new Set();
          for (let done = false; !done; ) {
            if (actions.length >= maxSteps) return undefined;
            const action = nextCommand(step, state, result.admissibleActions ?? []);
            if (action === undefined) return undefined;
            result = await env.step(action);
            actions.push(action);
            state.observe(action, result.observation);
            if (result.info.won) return { ...solution, actions };
            if (result.terminated || result.truncated) return undefined;
            done = alfworldPlanSteps.executes(step, action, result.observation);
          }
        }
        return undefined;
      } finally {
        await env.close?.();
      }
    },
  };
}
