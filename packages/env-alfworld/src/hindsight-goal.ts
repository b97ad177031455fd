// Hindsight goals: a lost episode that put some object somewhere, or held one under a lamp it
// switched on, still reached a goal: not the one it was given, but one the task generator could
// have given. Written in the generator's own sentence templates, that goal turns the episode into a
// demonstration for it (hindsight experience replay). The failures this targets are the common
// ones: the wrong object taken, or the right one put away without the heating, cooling or cleaning
// the goal asked for. Only the episode's commands are read; they must all have been admissible
// (as constrained decoding and `replay` guarantee), since a command's effect is taken as given.
import type { HindsightRelabeller, Reached } from '@pilotrl/core';
import { goalTemplates } from './vocabulary';

/** What the commands did to an object: heated, cooled or cleaned it. */
type Treatment = 'hot' | 'cool' | 'clean';

export type HindsightGoal =
  | {
      type:
        | 'pick_and_place_simple'
        | 'pick_heat_then_place_in_recep'
        | 'pick_cool_then_place_in_recep'
        | 'pick_clean_then_place_in_recep';
      /** Lower-case type names, as goal sentences spell them: `apple`, `sinkbasin`. */
      obj: string;
      recep: string;
    }
  | { type: 'look_at_obj_in_light'; obj: string; toggle: string };

/** What one command achieved: an object put in a receptacle, or an object held under a lamp. */
type Event =
  | {
      kind: 'put';
      obj: string;
      recep: string;
      /** The type of receptacle the object was taken from. */
      from: string;
      treatments: ReadonlySet<Treatment>;
    }
  | { kind: 'look'; obj: string; toggle: string };

/** The put goal each treatment makes, in the order a treated object's goal is named by. */
const treatmentGoals = {
  hot: 'pick_heat_then_place_in_recep',
  cool: 'pick_cool_then_place_in_recep',
  clean: 'pick_clean_then_place_in_recep',
} as const satisfies Record<Treatment, HindsightGoal['type']>;
const treatments = Object.keys(treatmentGoals) as Treatment[];

/** `apple 2` → `apple`. */
const typeName = (instance: string) => instance.replace(/ \d+$/, '');

/** The event of each command (undefined where it achieved none). */
function events(actions: readonly string[]): (Event | undefined)[] {
  let holding: string | undefined;
  const takenFrom = new Map<string, string>();
  const treated = new Map<string, Set<Treatment>>();
  const treat = (instance: string, add: Treatment, remove?: Treatment) => {
    const own = treated.get(instance) ?? new Set<Treatment>();
    own.add(add);
    if (remove !== undefined) own.delete(remove);
    treated.set(instance, own);
  };
  return actions.map((action) => {
    const command = /^(take|heat|cool|clean|put|use) (.+?)(?: (?:from|with|in\/on) (.+))?$/.exec(action);
    if (command === null) return undefined;
    const [, verb, object, receptacle] = command as unknown as [string, string, string, string | undefined];
    switch (verb) {
      case 'take':
        holding = object;
        takenFrom.set(object, typeName(receptacle ?? ''));
        return undefined;
      case 'heat':
        treat(object, 'hot', 'cool');
        return undefined;
      case 'cool':
        treat(object, 'cool', 'hot');
        return undefined;
      case 'clean':
        treat(object, 'clean');
        return undefined;
      case 'put':
        holding = undefined;
        return {
          kind: 'put',
          obj: typeName(object),
          recep: typeName(receptacle ?? ''),
          from: takenFrom.get(object) ?? '',
          treatments: new Set(treated.get(object)),
        };
      default:
        // `use` switches a lamp on; it looks at an object only while one is held.
        return holding === undefined
          ? undefined
          : { kind: 'look', obj: typeName(holding), toggle: typeName(object) };
    }
  });
}

/** Whether an event achieves `goal` (a hot apple put in the sink also puts an apple there). */
function achieves(event: Event, goal: HindsightGoal): boolean {
  if (goal.type === 'look_at_obj_in_light') {
    return event.kind === 'look' && event.obj === goal.obj && event.toggle === goal.toggle;
  }
  if (event.kind !== 'put' || event.obj !== goal.obj || event.recep !== goal.recep) return false;
  const need = treatments.find((treatment) => treatmentGoals[treatment] === goal.type);
  return need === undefined || event.treatments.has(need);
}

/**
 * The first goal the commands reach, the most specific one at that command (a heated apple put in
 * the sink: "put a hot apple in sinkbasin"), and how many commands it took; undefined when they
 * reach none. An object put back into the kind of receptacle it came from reaches no goal: one was
 * in such a receptacle from the start, so the task generator would not have asked for it.
 */
export function hindsightGoal(
  actions: readonly string[],
): { goal: HindsightGoal; reachedAfter: number } | undefined {
  for (const [index, event] of events(actions).entries()) {
    if (event === undefined || (event.kind === 'put' && event.recep === event.from)) continue;
    if (event.kind === 'look') {
      return {
        goal: { type: 'look_at_obj_in_light', obj: event.obj, toggle: event.toggle },
        reachedAfter: index + 1,
      };
    }
    const treatment = treatments.find((t) => event.treatments.has(t));
    const type = treatment === undefined ? 'pick_and_place_simple' : treatmentGoals[treatment];
    return { goal: { type, obj: event.obj, recep: event.recep }, reachedAfter: index + 1 };
  }
  return undefined;
}

/** Whether the last of the commands achieves `goal`: the test for replaying towards it. */
export const reaches =
  (goal: HindsightGoal): Reached =>
  (_, actions) => {
    const last = events(actions).at(-1);
    return last !== undefined && achieves(last, goal);
  };

/** The goal in the generator's sentence template A (0) or B (1) for its type. */
export function goalSentence(goal: HindsightGoal, template: 0 | 1): string {
  return goalTemplates[goal.type][template]
    .replace('{obj}', goal.obj)
    .replace('{recep}', 'recep' in goal ? goal.recep : '')
    .replace('{toggle}', 'toggle' in goal ? goal.toggle : '');
}

/** ALFWorld's hindsight relabelling, for self-improvement that learns from lost episodes too. */
export const alfworldHindsight: HindsightRelabeller<HindsightGoal> = {
  find: hindsightGoal,
  reaches,
  describe: (goal, rng) => goalSentence(goal, rng.int(2) as 0 | 1),
};
