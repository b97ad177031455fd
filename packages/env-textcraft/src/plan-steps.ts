// TextCraft's plan-step vocabulary: `get <item>` and `craft <item>` for the items the opening
// listing names (every input and every output of its crafting commands, and the members of the
// groups a generic ingredient like `planks` stands for, when those are listed). A `get` step is
// carried out by a `get` of that item that the env answers `Got`; a `craft` step by any command
// the env answers `Crafted <n> <that item's id>` (under the 2024 traversal that may be a command
// naming another output).
import type { PlanStepVocabulary } from '@pilotrl/core';
import { textToItemId } from './world';

const LISTING_LINE = /^craft \d+ (.+?) using (.+)$/;

/** The plan a won command sequence carries out: its `get` and `craft` commands, by item. */
export function textcraftPlanOf(actions: readonly string[]): string[] {
  const plan: string[] = [];
  for (const action of actions) {
    const get = /^get \d+ (.+)$/.exec(action);
    const craft = /^craft (?:\d+ )?(.+?) using /.exec(action);
    if (get !== null) plan.push(`get ${get[1]}`);
    else if (craft !== null) plan.push(`craft ${craft[1]}`);
  }
  return plan;
}

export const textcraftPlanSteps: PlanStepVocabulary = {
  steps({ observations }) {
    const gets = new Set<string>();
    const crafts = new Set<string>();
    for (const line of (observations[0] ?? '').split('\n')) {
      const match = LISTING_LINE.exec(line);
      if (match === null) continue;
      crafts.add(`craft ${match[1]}`);
      for (const input of match[2]!.split(', ')) gets.add(`get ${input.replace(/^\d+ /, '')}`);
    }
    // An item some listed recipe makes is crafted, not got (TextCraft refuses to `get` it).
    const craftable = new Set([...crafts].map((step) => step.slice('craft '.length)));
    return [...[...gets].filter((step) => !craftable.has(step.slice('get '.length))), ...crafts];
  },

  executes(step, action, observation) {
    const answer = observation.replace(/^Instruction:\n/, '');
    if (step.startsWith('get ')) {
      const get = /^get \d+ (.+)$/.exec(action);
      return get !== null && get[1] === step.slice('get '.length) && answer.startsWith('Got ');
    }
    if (step.startsWith('craft ')) {
      const crafted = /^Crafted \d+ (\S+)$/.exec(answer);
      return crafted !== null && crafted[1] === textToItemId(step.slice('craft '.length));
    }
    return false;
  },

  planOf: textcraftPlanOf,
};
