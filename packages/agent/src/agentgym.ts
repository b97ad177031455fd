// Conversion between episodes and the AgentGym conversation format (AgentTraj-style items:
// `{ item_id, conversations: [{ from: 'human' | 'gpt', loss, value }] }`), which PilotRL's
// released trajectories use.
//
// Mapping, episode → item:
//   human  the system instructions (loss false)            gpt  "OK" (loss false)
//   human  initial observation [+ "\nAVAILABLE ACTIONS: a,b,c"] [+ "\n\n" + given plan block]
//   per turn:
//     gpt    the model's texts of the turn joined by "\n": plan generation(s) then the act
//            generation (loss true); with style 'agentgym' a parsed act is written
//            "Thought:\n...\n\nAction:\n..." as AgentGym's ReAct data does
//     human  the env's next observation [+ AVAILABLE ACTIONS]; after a malformed answer, the
//            same observation again
//   `reward` = episode.reward ?? envReturn, `success` = won, and `pilotrl` carries the fields
//   that have no place in a conversation (ids, seed, split, plan history, turn rewards).
// Item → episode: the reverse. Without a `pilotrl` block (released data) the ids come from
// options, `won` from `success` (else reward ≥ 1), the plans from the `<global_plan>` blocks.
// Token ids, loss masks and logprobs do not survive: AgentGym stores text only, so generations
// read back carry empty token arrays and policy version 0.
import {
  EPISODE_FORMAT_VERSION,
  type Episode,
  episodeSchema,
  type Generation,
  ParseError,
  type Plan,
  type PlanRevision,
  parseOrThrow,
  rewardComponentsSchema,
  type Turn,
} from '@pilotrl/core';
import { z } from 'zod';
import { type ActionMatcher, createActionMatcher } from './action-matcher';
import { parseActOutput, parsePlanOutput } from './output-parser';
import { type PromptTemplate, planBlock, promptTemplateFor } from './prompt-templates';

export const agentGymMessageSchema = z.object({
  from: z.enum(['human', 'gpt']),
  /** Whether the message is trained on; released data writes null on human messages. */
  loss: z.boolean().nullable(),
  value: z.string(),
});
export type AgentGymMessage = z.infer<typeof agentGymMessageSchema>;

/** Episode fields a conversation has no place for, carried beside it for an exact round trip. */
const extrasSchema = episodeSchema
  .pick({
    formatVersion: true,
    id: true,
    envId: true,
    taskId: true,
    split: true,
    seed: true,
    groupId: true,
    sampleIndex: true,
    paradigm: true,
    task: true,
    taskType: true,
    terminated: true,
    truncated: true,
    planHistory: true,
    rewardComponents: true,
    reward: true,
    metadata: true,
  })
  .extend({ turnRewards: z.array(rewardComponentsSchema), envRewards: z.array(z.number()) });

export const agentGymItemSchema = z.looseObject({
  item_id: z.string(),
  conversations: z.array(agentGymMessageSchema).min(1),
  reward: z.number().optional(),
  success: z.union([z.boolean(), z.number()]).optional(),
  pilotrl: extrasSchema.optional(),
});
export type AgentGymItem = z.infer<typeof agentGymItemSchema>;

export interface ToAgentGymOptions {
  /** Instructions for the first human message; by default the env's template. */
  template?: PromptTemplate;
  /** 'tags' keeps the model's text as written; 'agentgym' rewrites acts as `Thought:\n...\n\nAction:\n...`. */
  style?: 'tags' | 'agentgym';
}

const ACTIONS_MARK = '\nAVAILABLE ACTIONS: ';

function withActions(observation: string, actions: readonly string[]): string {
  return actions.length === 0 ? observation : `${observation}${ACTIONS_MARK}${actions.join(',')}`;
}

function splitActions(value: string): { observation: string; actions: string[] } {
  const at = value.lastIndexOf(ACTIONS_MARK);
  if (at < 0) return { observation: value, actions: [] };
  const list = value.slice(at + ACTIONS_MARK.length);
  return { observation: value.slice(0, at), actions: list.length === 0 ? [] : list.split(',') };
}

export function episodeToAgentGym(episode: Episode, options: ToAgentGymOptions = {}): AgentGymItem {
  const template = options.template ?? promptTemplateFor(episode.envId);
  const paradigm = episode.paradigm === 'adaplan' ? 'adaplan' : 'react';
  const given = episode.planHistory.find((revision) => revision.turn === 0 && revision.source !== 'policy');
  const givenByChoice = episode.turns[0]?.generations.some((g) => g.kind === 'plan') ?? false;
  let opening = withActions(episode.initialObservation, episode.turns[0]?.admissibleActions ?? []);
  if (given !== undefined && !givenByChoice) opening += `\n\n${planBlock(given.steps)}`;
  const conversations: AgentGymMessage[] = [
    { from: 'human', loss: false, value: template.system(paradigm) },
    { from: 'gpt', loss: false, value: 'OK' },
    { from: 'human', loss: false, value: opening },
  ];
  for (const [index, turn] of episode.turns.entries()) {
    const texts = turn.generations.map((generation) => {
      if (generation.kind !== 'act' || options.style !== 'agentgym' || turn.formatError !== null)
        return generation.text;
      return `Thought:\n${turn.thought ?? ''}\n\nAction:\n${turn.action ?? ''}`;
    });
    conversations.push({ from: 'gpt', loss: true, value: texts.join('\n') });
    const next = episode.turns[index + 1];
    const finalObservation = episode.metadata.finalObservation;
    if (next !== undefined) {
      conversations.push({
        from: 'human',
        loss: false,
        value: withActions(next.observation, next.admissibleActions),
      });
    } else if (typeof finalObservation === 'string') {
      conversations.push({ from: 'human', loss: false, value: finalObservation });
    }
  }
  return {
    item_id: episode.id,
    conversations,
    reward: episode.reward ?? episode.envReturn,
    success: episode.won,
    // The schema keeps the fields it names and drops the rest (turns travel as the conversation).
    pilotrl: extrasSchema.parse({
      ...episode,
      turnRewards: episode.turns.map((turn) => turn.rewards),
      envRewards: episode.turns.map((turn) => turn.envReward),
    }),
  };
}

export interface FromAgentGymOptions {
  /** Used when the item has no `pilotrl` block. */
  envId?: string;
  split?: string;
  paradigm?: 'adaplan' | 'react';
  actionMatcher?: ActionMatcher;
}

const agentGymAct = /^\s*(?:Thought:\s*([\s\S]*?)\s*)?Action:\s*([\s\S]*?)\s*$/;

/** Reads an act in either our tagged form or AgentGym's `Thought: ... Action: ...` form. */
function readAct(text: string): {
  thought: string | null;
  action: string | null;
  formatError: string | null;
} {
  const tagged = parseActOutput(text);
  if (tagged.ok) return { thought: tagged.thought, action: tagged.action, formatError: null };
  const plain = agentGymAct.exec(text);
  const action = plain?.[2]?.trim() ?? '';
  if (plain !== null && action.length > 0 && !action.includes('\n')) {
    return { thought: plain[1]?.trim() || null, action, formatError: null };
  }
  return { thought: null, action: null, formatError: `${tagged.code}: ${tagged.message}` };
}

function emptyGeneration(kind: Generation['kind'], text: string): Generation {
  return { kind, text, tokenIds: [], lossMask: [], logprobs: [], policyVersion: 0, finishReason: 'stop' };
}

export function agentGymToEpisode(item: unknown, options: FromAgentGymOptions = {}): Episode {
  const parsed = parseOrThrow(agentGymItemSchema, item, 'AgentGym item');
  const extras = parsed.pilotrl;
  const messages = [...parsed.conversations];
  // The instruction exchange (human instructions, gpt "OK") is not part of the episode.
  if (messages[1]?.from === 'gpt' && messages[1].value.trim() === 'OK') messages.splice(0, 2);
  const openingMessage = messages.shift();
  if (openingMessage === undefined || openingMessage.from !== 'human') {
    throw invalidItem(parsed.item_id, 'the conversation has no opening observation from "human"');
  }
  const planAt = openingMessage.value.indexOf('\n\n<global_plan>');
  const givenPlan = planAt < 0 ? null : parsePlanOutput(openingMessage.value.slice(planAt + 2));
  const opening = splitActions(planAt < 0 ? openingMessage.value : openingMessage.value.slice(0, planAt));
  const matcher = options.actionMatcher ?? createActionMatcher();
  const planHistory: PlanRevision[] = [];
  if (givenPlan?.ok) planHistory.push({ turn: 0, steps: givenPlan.steps, source: 'external', fixedSteps: 0 });

  const turns: Turn[] = [];
  let current = opening;
  let finalObservation: string | null = null;
  for (let index = 0; index < messages.length; index += 2) {
    const reply = messages[index]!;
    const answer = messages[index + 1];
    if (reply.from !== 'gpt' || (answer !== undefined && answer.from !== 'human')) {
      throw invalidItem(parsed.item_id, `message ${index + 3} breaks the gpt/human alternation`);
    }
    const planEnd = reply.value.lastIndexOf('</global_plan>');
    const planText = planEnd < 0 ? null : reply.value.slice(0, planEnd + '</global_plan>'.length);
    const actText =
      planEnd < 0 ? reply.value : reply.value.slice(planEnd + '</global_plan>'.length).replace(/^\n/, '');
    const generations: Generation[] = [];
    let formatError: string | null = null;
    if (planText !== null) {
      generations.push(emptyGeneration('plan', planText));
      const plan = parsePlanOutput(planText);
      if (plan.ok) recordPlan(planHistory, turns.length, plan.steps);
      else formatError = `plan ${plan.code}: ${plan.message}`;
    }
    generations.push(emptyGeneration('act', actText));
    const act = readAct(actText);
    if (act.formatError !== null)
      formatError = formatError === null ? act.formatError : `${formatError}; ${act.formatError}`;
    const action = act.action === null ? null : matcher.match(act.action, current.actions).command;
    const turnIndex = turns.length;
    turns.push({
      index: turnIndex,
      observation: current.observation,
      admissibleActions: current.actions,
      generations,
      thought: act.thought,
      action,
      formatError,
      envReward: extras?.envRewards[turnIndex] ?? 0,
      valid: action !== null && (current.actions.length === 0 || current.actions.includes(action)),
      rewards: extras?.turnRewards[turnIndex] ?? {},
    });
    if (answer !== undefined) {
      current = splitActions(answer.value);
      finalObservation = answer.value;
    }
  }
  const reward = parsed.reward ?? 0;
  const won = parsed.success === undefined ? reward >= 1 : Boolean(parsed.success);
  const metadata: Record<string, unknown> = { ...(extras?.metadata ?? {}) };
  if (finalObservation !== null && extras === undefined) metadata.finalObservation = finalObservation;
  const taskType = extras?.taskType;
  return {
    formatVersion: EPISODE_FORMAT_VERSION,
    id: extras?.id ?? parsed.item_id,
    envId: extras?.envId ?? options.envId ?? 'unknown',
    taskId: extras?.taskId ?? parsed.item_id,
    split: extras?.split ?? options.split ?? '',
    seed: extras?.seed ?? 0,
    groupId: extras?.groupId ?? parsed.item_id,
    sampleIndex: extras?.sampleIndex ?? 0,
    paradigm: extras?.paradigm ?? options.paradigm ?? (planHistory.length > 0 ? 'adaplan' : 'react'),
    task: extras?.task ?? /Your task is to: ([^\n]*)/.exec(opening.observation)?.[1] ?? '',
    ...(taskType === undefined ? {} : { taskType }),
    initialObservation: opening.observation,
    turns,
    planHistory: extras?.planHistory ?? planHistory,
    won,
    terminated: extras?.terminated ?? won,
    truncated: extras?.truncated ?? !won,
    envReturn: extras === undefined ? reward : sumOf(extras.envRewards),
    rewardComponents: extras?.rewardComponents ?? {},
    ...(extras?.reward === undefined ? {} : { reward: extras.reward }),
    metadata,
  };
}

function sumOf(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0);
}

function recordPlan(history: PlanRevision[], turn: number, steps: Plan): void {
  history.push({ turn, steps, source: 'policy', fixedSteps: 0 });
}

/** An AgentGym item whose conversation cannot be read as an episode. */
function invalidItem(itemId: string, problem: string): ParseError {
  return new ParseError(`AgentGym item "${itemId}"`, undefined, problem);
}
