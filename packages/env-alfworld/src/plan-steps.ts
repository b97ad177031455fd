// ALFWorld's plan-step vocabulary: the subgoals a plan can name, over the receptacles the opening
// observation lists and the object types named in the goal or seen since.
//   go to <receptacle>                      take <object>
//   heat|cool|clean <object> with <appliance>   put <object> in <receptacle>
//   use <lamp>
// Objects are written by type and taken from wherever they turn up ("take apple"): a plan is made
// before the object is found, so it cannot know where, and any instance of the type taken from any
// receptacle carries the step out. Appliances are the receptacles that do
// the treatment (microwave, fridge, sinkbasin), lamps the lamp types.
import type { PlanStepVocabulary } from '@pilotrl/core';
import { goalTemplates } from './vocabulary';

const appliances = { heat: 'microwave', cool: 'fridge', clean: 'sinkbasin' } as const;
const lampTypes = new Set(['desklamp', 'floorlamp']);

/** The "a cabinet 4, a cabinet 3, and a toaster 1" instances an observation lists after "you see". */
export function listedInstances(observation: string): string[] {
  const instances: string[] = [];
  for (const seen of observation.matchAll(/you see ([^.]*)\./gi)) {
    for (const item of seen[1]!.matchAll(/\ban? ([a-z]+ \d+)/g)) instances.push(item[1]!);
  }
  return instances;
}

export const typeOf = (instance: string) => instance.replace(/ \d+$/, '');

/** The object and lamp types a goal sentence names, read with the generator's templates. */
function goalTypes(goal: string): string[] {
  const sentence = goal
    .replace(/^.*your task is to:\s*/is, '')
    .replace(/\.\s*$/, '')
    .trim();
  for (const templates of Object.values(goalTemplates)) {
    for (const template of templates) {
      const pattern = template
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{(obj|recep|toggle)\}/g, (_, name: string) => `(?<${name}>[a-z]+)`);
      const match = new RegExp(`^${pattern}$`).exec(sentence);
      if (match?.groups !== undefined) {
        return [match.groups.obj, match.groups.toggle].filter((t): t is string => t !== undefined);
      }
    }
  }
  return [];
}

/** `text` as a regular expression matching it literally. */
export const literal = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
/** A type followed by an instance number, as commands write objects: "apple" matches "apple 12". */
const instanceOf = (type: string) => `${literal(type)} \\d+`;

/**
 * A won command sequence (the oracle's, a shortcut) as a plan in this vocabulary: its take,
 * treatment, put and lamp steps, objects by type. Walking between them is left to the actions.
 */
export function alfworldPlanOf(actions: readonly string[]): string[] {
  const steps: string[] = [];
  for (const action of actions) {
    const take = /^take (\S+) \d+ from .+$/.exec(action);
    const treat = /^(heat|cool|clean) (\S+) \d+ with (.+)$/.exec(action);
    const put = /^(?:put (\S+) \d+ in\/on|move (\S+) \d+ to) (.+)$/.exec(action);
    const use = /^use (\S+) \d+$/.exec(action);
    if (take) steps.push(`take ${take[1]}`);
    else if (treat) steps.push(`${treat[1]} ${treat[2]} with ${treat[3]}`);
    else if (put) steps.push(`put ${put[1] ?? put[2]} in ${put[3]}`);
    else if (use) steps.push(`use ${use[1]}`);
  }
  return steps;
}

export const alfworldPlanSteps: PlanStepVocabulary = {
  steps({ goal, observations }) {
    const [opening = '', ...later] = observations;
    const receptacles = [...new Set(listedInstances(opening))];
    const known = new Set(receptacles);
    const types = new Set(goalTypes(goal));
    for (const observation of later) {
      for (const instance of listedInstances(observation))
        if (!known.has(instance)) types.add(typeOf(instance));
    }
    const objects = [...types].filter((type) => !lampTypes.has(type));
    const steps = receptacles.map((receptacle) => `go to ${receptacle}`);
    for (const object of objects) {
      steps.push(`take ${object}`);
      for (const [verb, appliance] of Object.entries(appliances)) {
        for (const receptacle of receptacles) {
          if (typeOf(receptacle) === appliance) steps.push(`${verb} ${object} with ${receptacle}`);
        }
      }
      for (const receptacle of receptacles) steps.push(`put ${object} in ${receptacle}`);
    }
    for (const lamp of types) if (lampTypes.has(lamp)) steps.push(`use ${lamp}`);
    return steps;
  },

  executes(step, action, observation) {
    const go = /^go to (.+)$/.exec(step);
    if (go) return action === step && observation.startsWith('You arrive');
    const take = /^take (\S+)$/.exec(step);
    if (take) {
      return (
        new RegExp(`^take ${instanceOf(take[1]!)} from `).test(action) &&
        observation.startsWith('You pick up')
      );
    }
    const treat = /^(heat|cool|clean) (\S+) with (.+)$/.exec(step);
    if (treat) {
      return (
        new RegExp(`^${treat[1]} ${instanceOf(treat[2]!)} with ${literal(treat[3]!)}$`).test(action) &&
        observation.startsWith(`You ${treat[1]}`)
      );
    }
    const put = /^put (\S+) in (.+)$/.exec(step);
    if (put) {
      const object = instanceOf(put[1]!);
      const receptacle = literal(put[2]!);
      return (
        new RegExp(`^(put ${object} in/on|move ${object} to) ${receptacle}$`).test(action) &&
        /^You (put|move) /.test(observation)
      );
    }
    const use = /^use (\S+)$/.exec(step);
    if (use)
      return new RegExp(`^use ${instanceOf(use[1]!)}$`).test(action) && observation.startsWith('You turn on');
    return false;
  },

  planOf: alfworldPlanOf,

  alternatives(plan, { observations }) {
    // A goal names receptacle types, so any receptacle of the type the plan uses does as well;
    // one receptacle of the plan is swapped for another of its type, everywhere it appears.
    const present = [...new Set(listedInstances(observations[0] ?? ''))];
    const used = [...new Set(plan.flatMap((step) => /(?: in | with )(.+)$/.exec(step)?.[1] ?? []))];
    const alternatives: string[][] = [];
    for (const receptacle of used) {
      for (const other of present) {
        if (other === receptacle || typeOf(other) !== typeOf(receptacle) || used.includes(other)) continue;
        alternatives.push(
          plan.map((step) => step.replace(new RegExp(` ${literal(receptacle)}$`), ` ${other}`)),
        );
      }
    }
    return alternatives;
  },
};
