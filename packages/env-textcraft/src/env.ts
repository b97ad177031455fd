// The TextCraft TextEnv: AgentGym's server text for every command (in its own `agentgym` dialect,
// or AgentTraj-L's `agenttraj` one), reward 1 when the goal is crafted, and PilotRL's step limit
// (AgentGym's 20 rounds by default) reported as truncated. The admissible actions, which TextCraft
// itself has not, are the commands that would succeed now, or every command the listing names.
import { parseOrThrow, resetOptionsSchema, type StepResult, stepEpisode, type TextEnv } from '@pilotrl/core';
import { z } from 'zod';
import { type EpisodeStart, resolveSetup, TEXTCRAFT_ENV_ID, worldOptionsSchema } from './setup';

/**
 * What `reset` takes: a seed (AgentGym's `data_idx`) and optionally a task id, or a goal with its
 * crafting listing (AgentGym's `reset(commands=…, goal=…)`, see `listedTaskSchema`); a `TaskRef`'s
 * other fields are let through. Any other field is refused by name, so a misspelt `command` does not
 * quietly play `data_idx` instead.
 */
export const textcraftResetOptionsSchema = resetOptionsSchema
  .extend({
    goal: z.string().min(1).optional(),
    commands: z.union([z.string(), z.array(z.string())]).optional(),
    split: z.string().optional(),
    taskType: z.string().optional(),
    description: z.string().optional(),
  })
  .strict()
  .superRefine((options, ctx) => {
    const given = [options.goal !== undefined, options.commands !== undefined];
    if (given[0] !== given[1]) {
      ctx.addIssue({
        code: 'custom',
        path: [given[0] ? 'commands' : 'goal'],
        message: `is required with ${given[0] ? 'goal' : 'commands'}: a task given whole has both`,
      });
    }
    if (given[0] && options.taskId !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['taskId'],
        message: 'cannot go with goal and commands: play a task id, or a goal with its listing',
      });
    }
  });
export type TextcraftResetOptions = z.input<typeof textcraftResetOptionsSchema>;

/** The TextCraft env: a `TextEnv` whose `reset` also takes a goal with its listing. */
export interface TextcraftEnv extends TextEnv {
  reset(options: TextcraftResetOptions): Promise<StepResult>;
}

import { itemIdToText, nameOf } from './world';

export const textcraftConfigSchema = worldOptionsSchema.extend({
  /** Steps (valid or not) after which an unfinished episode is truncated; AgentGym allows 20 rounds. */
  maxSteps: z.number().int().positive().default(20),
  /**
   * `agentgym`: the released server's text (an inventory line ends with a space). `agenttraj`:
   * AgentTraj-L's text, every observation after `Instruction:\n` and without trailing spaces.
   */
  dialect: z.enum(['agentgym', 'agenttraj']).default('agentgym'),
  /**
   * Which commands the env lists (TextCraft itself lists none). `succeeding`: those that would
   * succeed now (`inventory`, gets of the items the listing uses, each listed recipe the inventory
   * can craft). `listed`: every command the listing names, whether it would succeed or not, the
   * same all episode (`inventory`, those gets, each listed recipe with every group member in place
   * of a generic ingredient): what an agent reading the listing could write. `none`: an empty
   * list, as AgentGym's server gives.
   */
  admissibleActions: z.enum(['succeeding', 'listed', 'none']).default('succeeding'),
});
export type TextcraftConfig = z.input<typeof textcraftConfigSchema>;

/** The task in words, as `info.task` and task descriptions give it. */
export const textcraftTask = (goalText: string) => `craft ${goalText}`;

/** At most this many craft commands per listed recipe, when tag ingredients allow several. */
const MAX_VARIANTS = 4;

interface Episode {
  readonly start: EpisodeStart;
  /** The gets of the listing's items, made once per episode (the listing is fixed). */
  readonly gets: readonly string[];
  /** The `listed` commands, made once per episode. */
  readonly listed: readonly string[] | undefined;
  readonly taskId: string | undefined;
  steps: number;
  last: StepResult;
}

/** `get <n> <item>` for each gettable item a listed recipe uses (or a group member of a generic ingredient), with `n` 1 and each amount one listed recipe takes of it. */
function listedGets(start: EpisodeStart): string[] {
  const { world, listing } = start;
  const amounts = new Map<string, Set<number>>();
  const addGet = (itemId: string, amount: number) => {
    if (!world.isGettable(itemId)) return;
    const known = amounts.get(itemId) ?? new Set([1]);
    amounts.set(itemId, known.add(amount));
  };
  for (const recipe of listing) {
    const totals = new Map<string, number>();
    for (const input of recipe.inputs) {
      const name = nameOf(input.itemTag);
      totals.set(name, (totals.get(name) ?? 0) + input.count);
    }
    for (const [name, total] of totals) {
      addGet(name, total);
      for (const [member, group] of world.groupTagOf) if (group === name) addGet(member, total);
    }
  }
  return [...amounts].flatMap(([itemId, counts]) =>
    [...counts].sort((a, b) => a - b).map((count) => `get ${count} ${itemIdToText(itemId)}`),
  );
}

/**
 * The craft commands of each listed recipe, a generic ingredient written as each item of its group
 * that `members` offers (at most MAX_VARIANTS commands per recipe).
 */
function listedCrafts(start: EpisodeStart, members: (tag: string, count: number) => string[]): string[] {
  const crafts: string[] = [];
  for (const recipe of start.listing) {
    let variants: string[][] = [[]];
    for (const input of recipe.inputs) {
      const candidates =
        input.itemTag.itemId !== undefined
          ? [input.itemTag.itemId]
          : members(input.itemTag.tag!, input.count);
      variants = variants
        .flatMap((chosen) => candidates.map((id) => [...chosen, `${input.count} ${itemIdToText(id)}`]))
        .slice(0, MAX_VARIANTS);
    }
    const output = `craft ${recipe.output.count} ${itemIdToText(nameOf(recipe.output.itemTag))} using `;
    for (const using of variants) {
      const command = output + using.join(', ');
      if (!crafts.includes(command)) crafts.push(command);
    }
  }
  return crafts;
}

/**
 * Commands that would succeed now: `inventory`, the listed gets, and each listed recipe the
 * inventory can craft, with the held group members in place of a generic ingredient.
 */
function succeeding(start: EpisodeStart, gets: readonly string[]): string[] {
  const { world, game } = start;
  const held = (tag: string, count: number) =>
    [...game.inventory.keys()].filter(
      (id) => world.groupTagOf.get(id) === tag && (game.inventory.get(id) ?? 0n) >= BigInt(count),
    );
  const crafts = listedCrafts(start, held).filter((command) => game.preview(command).executed);
  return ['inventory', ...gets, ...crafts];
}

/** Every command the listing names: `inventory`, the listed gets, each listed recipe with every group member in place of a generic ingredient. */
function listed(start: EpisodeStart, gets: readonly string[]): string[] {
  const { world } = start;
  const members = (tag: string) =>
    [...world.groupTagOf].flatMap(([id, group]) => (group === tag ? [id] : [])).sort();
  return ['inventory', ...gets, ...listedCrafts(start, members)];
}

/**
 * Creates a TextCraft env. `reset({ seed })` plays AgentGym's `data_idx = seed` (goal number
 * `seed % goals`); `reset({ seed, taskId })` plays that task (`train-3`, `generated_depth_2-7`);
 * `reset({ seed, goal, commands })` plays that goal with that crafting listing.
 */
export function createTextcraftEnv(config?: TextcraftConfig): TextcraftEnv {
  const { maxSteps, dialect, admissibleActions, ...worldOptions } = parseOrThrow(
    textcraftConfigSchema,
    config ?? {},
    'textcraft config',
  );
  const setup = resolveSetup(worldOptions);
  const shown = (observation: string) =>
    dialect === 'agenttraj' ? `Instruction:\n${observation.replace(/ +$/, '')}` : observation;
  let episode: Episode | undefined;

  const result = (current: Episode, observation: string, valid: boolean, won: boolean): StepResult => {
    const truncated = !won && current.steps >= maxSteps;
    const { start } = current;
    const commands =
      won || truncated || admissibleActions === 'none'
        ? []
        : admissibleActions === 'listed'
          ? [...current.listed!]
          : succeeding(start, current.gets);
    return {
      observation: shown(observation),
      admissibleActions: commands,
      reward: won ? 1 : 0,
      terminated: won,
      truncated,
      info: {
        won,
        valid,
        task: textcraftTask(start.goalText),
        ...(current.taskId === undefined ? {} : { taskId: current.taskId }),
        goal: start.goalText,
        ...(start.dataIdx === undefined ? {} : { dataIdx: start.dataIdx }),
      },
    };
  };

  return {
    envId: TEXTCRAFT_ENV_ID,
    async reset(options: TextcraftResetOptions) {
      const { seed, taskId, goal, commands } = parseOrThrow(
        textcraftResetOptionsSchema,
        options,
        'textcraft reset options',
      );
      const start =
        goal !== undefined && commands !== undefined
          ? setup.listed({ goal, commands })
          : setup.start(seed, taskId);
      const gets = listedGets(start);
      const fresh: Episode = {
        start,
        gets,
        taskId,
        listed: admissibleActions === 'listed' ? listed(start, gets) : undefined,
        steps: 0,
        last: undefined as never,
      };
      fresh.last = result(fresh, start.opening, true, false);
      episode = fresh;
      return fresh.last;
    },
    async step(action: string) {
      return stepEpisode(TEXTCRAFT_ENV_ID, episode, action, (current, command) => {
        const step = current.start.game.step(command);
        return result(current, step.observation, step.executed, step.done);
      });
    },
    async close() {
      episode = undefined;
    },
  };
}
