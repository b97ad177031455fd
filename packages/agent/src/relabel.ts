// Relabelling for self-improvement (expert iteration): from each group of episodes played on one
// task, one command sequence worth imitating. A group with a win gives the shortest of its wins
// replayed without detours (`shortcut`); a group without one gives, where the env offers hindsight
// relabelling, the shortest way to a goal one of its episodes did reach, stated as that goal.
// `winScript` makes one won episode such a script, under the plan it was played with.
// Works on any deterministic TextEnv; only hindsight needs the env's `HindsightRelabeller`.
import {
  type Episode,
  type HindsightRelabeller,
  InvalidArgumentError,
  type Rng,
  type TaskRef,
  type TextEnv,
} from '@pilotrl/core';
import type { Script } from './scripted-replay';
import { shortcut } from './shortcut';

export interface RelabelOptions {
  /** An env of the episodes' kind, reset for every replay. */
  env: TextEnv;
  /** Groups without a win learn the goal they reached, when given. */
  hindsight?: HindsightRelabeller;
  /** Picks among equivalent phrasings of a hindsight goal. */
  rng: Rng;
}

export interface RelabelReport {
  scripts: (Script & { source: 'shortcut' | 'hindsight' })[];
  /** Groups seen, groups with a win, groups relabelled with a hindsight goal. */
  groups: number;
  wonGroups: number;
  hindsightGroups: number;
  /** Lost groups whose episodes reached no goal the relabeller knows. */
  unreachedGroups: number;
  /** Hindsight goals whose replay did not reach them (the relabeller and the env disagree). */
  unreplayableGoals: number;
}

/** The task an episode was played on, as the env is reset for it. */
export function episodeTask(episode: Episode): TaskRef {
  return {
    taskId: episode.taskId,
    split: episode.split,
    seed: episode.seed,
    ...(episode.taskType === undefined ? {} : { taskType: episode.taskType }),
  };
}

/** The commands that took effect (an invalid command changes nothing, so a replay leaves it out). */
const commandsOf = (episode: Episode): string[] =>
  episode.turns.flatMap((turn) => (turn.action === null || !turn.valid ? [] : [turn.action]));

/**
 * A won episode as a script to imitate: its commands without their detours, under the plan it
 * started with (the one the policy wrote, picked or was given), so a replay teaches that plan too.
 */
export async function winScript(episode: Episode, env: TextEnv): Promise<Script> {
  if (!episode.won) {
    throw new InvalidArgumentError(
      `Episode "${episode.id}" was not won; only a win has a shortcut to imitate`,
    );
  }
  const task = episodeTask(episode);
  const plan = episode.planHistory[0]?.steps;
  return {
    task,
    commands: await shortcut(env, task, commandsOf(episode)),
    goal: null,
    ...(plan === undefined ? {} : { plan }),
  };
}

/** The episodes of each group, in first-seen order. */
export function groupEpisodes(episodes: readonly Episode[]): Episode[][] {
  const groups = new Map<string, Episode[]>();
  for (const episode of episodes) {
    const own = groups.get(episode.groupId);
    if (own === undefined) groups.set(episode.groupId, [episode]);
    else own.push(episode);
  }
  return [...groups.values()];
}

/** One script per group: its shortest shortcut to a win, else to a hindsight goal (see above). */
export async function relabelEpisodes(
  episodes: readonly Episode[],
  options: RelabelOptions,
): Promise<RelabelReport> {
  const report: RelabelReport = {
    scripts: [],
    groups: 0,
    wonGroups: 0,
    hindsightGroups: 0,
    unreachedGroups: 0,
    unreplayableGoals: 0,
  };
  for (const group of groupEpisodes(episodes)) {
    report.groups += 1;
    const task = episodeTask(group[0]!);
    const wins = group.filter((episode) => episode.won);
    if (wins.length > 0) {
      report.wonGroups += 1;
      let best: string[] | undefined;
      for (const win of wins) {
        const cut = await shortcut(options.env, task, commandsOf(win));
        if (best === undefined || cut.length < best.length) best = cut;
      }
      report.scripts.push({ task, commands: best!, goal: null, source: 'shortcut' });
      continue;
    }
    if (options.hindsight === undefined) continue;
    let best: { commands: string[]; goal: unknown } | undefined;
    for (const episode of group) {
      const commands = commandsOf(episode);
      const found = options.hindsight.find(commands);
      if (found === undefined) continue;
      let cut: string[];
      try {
        cut = await shortcut(
          options.env,
          task,
          commands.slice(0, found.reachedAfter),
          options.hindsight.reaches(found.goal),
        );
      } catch (error) {
        if (!(error instanceof InvalidArgumentError)) throw error;
        report.unreplayableGoals += 1;
        continue;
      }
      if (best === undefined || cut.length < best.commands.length) best = { commands: cut, goal: found.goal };
    }
    if (best === undefined) {
      report.unreachedGroups += 1;
      continue;
    }
    report.hindsightGroups += 1;
    report.scripts.push({
      task,
      commands: best.commands,
      goal: options.hindsight.describe(best.goal, options.rng),
      source: 'hindsight',
    });
  }
  return report;
}
