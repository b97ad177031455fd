// A shaped reward for ALFWorld episodes: the fraction of the task's milestones the episode reached,
// read from its commands and what the env said to them (no engine state). Milestones: holding an
// object of the goal's type, then (clean/heat/cool tasks) transforming it, then putting it in a
// receptacle of the goal's type (look tasks: using the lamp while holding it); twice over, with two
// distinct objects, for two-object tasks. A won episode has reached them all. Unlike the success
// bit it tells a near miss from a wasted episode, and what it rewards (take the object the task
// names, not whatever lies first) is the same on every task.
import type { Episode, RewardFn } from '@pilotrl/core';
import { parseGoal, takenObject, typeOf } from './searching-expert';

/** Component `progress` in [0, 1]. */
export function createProgressReward(): RewardFn {
  return {
    name: 'progress',
    compute(episode: Episode) {
      if (episode.won) return { progress: 1 };
      const goal = parseGoal(episode.task);
      const placed = new Set<string>();
      const transform = (action: string) => new RegExp(`^${goal.transform} (.+?) with `).exec(action)?.[1];
      const put = (action: string) => {
        const match = /^put (.+?) in\/on (.+)$/.exec(action);
        if (!match || typeOf(match[2]!) !== goal.target || placed.has(match[1]!)) return undefined;
        placed.add(match[1]!);
        return match[1];
      };
      let holding = '';
      const use = (action: string) => (action.startsWith(`use ${goal.target} `) ? holding : undefined);
      const one = [takenObject, ...(goal.transform ? [transform] : []), goal.look ? use : put];
      const milestones = goal.count === 2 ? [...one, ...one] : one;
      let reached = 0;
      for (const turn of episode.turns) {
        if (reached === milestones.length || turn.action === null || turn.valid === false) continue;
        const object = milestones[reached]!(turn.action);
        if (object !== undefined && typeOf(object) === goal.object) reached++;
        holding = takenObject(turn.action) ?? (turn.action.startsWith('put ') ? '' : holding);
      }
      return { progress: reached / milestones.length };
    },
  };
}
