// Prompt templates per environment: the instructions, how observations and admissible commands
// are shown, and how the model is asked for a plan, a plan revision, a plan choice or an action.
import { createRegistry, type Plan } from '@pilotrl/core';
import { formatPlan } from './plan-text';

export type Paradigm = 'adaplan' | 'react';

export interface PromptTemplate {
  readonly id: string;
  /** The system message: who the agent is and the answer format of the paradigm. */
  system(paradigm: Paradigm): string;
  /** The first user message: the goal and the opening observation. */
  intro(input: { task: string; observation: string; admissibleActions: readonly string[] }): string;
  /** The user message after an action: what the env answered. */
  observation(input: { observation: string; admissibleActions: readonly string[] }): string;
  /** Asks for the initial global plan. */
  planRequest(): string;
  /** Asks for a revised plan; the first `fixedSteps` steps are executed and stay as they are. */
  revisionRequest(input: { plan: Plan; fixedSteps: number }): string;
  /** Asks the model to pick one of several candidate plans. */
  choiceRequest(input: { candidates: readonly Plan[] }): string;
  /** Asks for the next thought and action; AdaPlan passes the plan in force. */
  actRequest(input: { paradigm: Paradigm; plan: Plan | null; fixedSteps: number }): string;
  /**
   * What precedes a command chosen among the admissible ones (the `choice` action space): the plan
   * in force for AdaPlan; empty for ReAct, whose prompt ends with the observation.
   */
  commandRequest(input: { paradigm: Paradigm; plan: Plan | null; fixedSteps: number }): string;
}

/** The plan as the model writes it, tags included. */
export function planBlock(plan: Plan): string {
  return `<global_plan>\n${formatPlan(plan)}\n</global_plan>`;
}

function listActions(actions: readonly string[]): string {
  return actions.length === 0
    ? ''
    : `\nAdmissible actions: ${actions.map((a) => JSON.stringify(a)).join(', ')}`;
}

const adaplanFormat = [
  'You work with a global plan. First, when asked for a plan, answer with the plan only:',
  '<global_plan>Step 1: ...\nStep 2: ...</global_plan>',
  'Each step is one high-level sub-goal, numbered from 1.',
  'Then, on every turn, answer with exactly one thought and one action:',
  '<thought>which plan step you are carrying out (e.g. "Step 2") and why this action</thought><action>one command</action>',
  'When asked to revise the plan, answer with the whole plan in the same <global_plan> form: keep the steps',
  'already carried out exactly as they are and change only the steps that remain.',
].join('\n');

const reactFormat = [
  'On every turn, answer with exactly one thought and one action:',
  '<thought>your reasoning about the situation and what to do next</thought><action>one command</action>',
].join('\n');

const commonRules =
  'Write nothing outside the tags. The action must be a single line, preferably one of the admissible actions, written exactly.';

/** Builds a template from the default one, replacing the parts given. */
export function createPromptTemplate(
  id: string,
  parts: Partial<Omit<PromptTemplate, 'id'>> & { instructions?: string } = {},
): PromptTemplate {
  const instructions =
    parts.instructions ??
    'You are an agent acting in a text environment. Each turn you read an observation and send one command to reach the goal.';
  return {
    id,
    system:
      parts.system ??
      ((paradigm) =>
        `${instructions}\n\n${paradigm === 'adaplan' ? adaplanFormat : reactFormat}\n${commonRules}`),
    intro:
      parts.intro ??
      (({ task, observation, admissibleActions }) =>
        // Envs such as ALFWorld already state the goal in the opening observation; say it once.
        `${task.length > 0 && !observation.includes(task) ? `Goal: ${task}\n\n` : ''}Observation: ${observation}${listActions(admissibleActions)}`),
    observation:
      parts.observation ??
      (({ observation, admissibleActions }) =>
        `Observation: ${observation}${listActions(admissibleActions)}`),
    planRequest:
      parts.planRequest ??
      (() => 'Write your global plan for this goal now, as <global_plan>Step 1: ...</global_plan>.'),
    revisionRequest:
      parts.revisionRequest ??
      (({ plan, fixedSteps }) =>
        `Your current plan:\n${planBlock(plan)}\n${
          fixedSteps > 0
            ? `Steps 1 to ${fixedSteps} are carried out and stay as they are.`
            : 'No step is carried out yet.'
        } Revise the remaining steps in the light of what you observed, and write the whole plan as <global_plan>...</global_plan>.`),
    choiceRequest:
      parts.choiceRequest ??
      (({ candidates }) =>
        `Candidate plans:\n${candidates.map((plan, index) => `Plan ${index + 1}:\n${formatPlan(plan)}`).join('\n\n')}\n\nWrite the plan you will follow, as <global_plan>...</global_plan>.`),
    actRequest:
      parts.actRequest ??
      (({ paradigm, plan, fixedSteps }) => {
        const ask = 'Write your next <thought>...</thought><action>...</action>.';
        if (paradigm === 'react') return ask;
        if (plan === null || plan.length === 0)
          return `You have no valid plan; act on the goal directly. ${ask}`;
        const done = fixedSteps > 0 ? `\nSteps 1 to ${fixedSteps} are carried out.` : '';
        return `Your global plan:\n${planBlock(plan)}${done}\n${ask}`;
      }),
    commandRequest:
      parts.commandRequest ??
      (({ paradigm, plan, fixedSteps }) => {
        if (paradigm === 'react' || plan === null || plan.length === 0) return '';
        const done = fixedSteps > 0 ? `\nSteps 1 to ${fixedSteps} are carried out.` : '';
        // The step to carry out now, last, next to the command chosen: a small model reads what
        // is near better than it counts steps.
        const next = plan[fixedSteps];
        return `Your global plan:\n${planBlock(plan)}${done}${next === undefined ? '' : `\nNext step: ${next}`}`;
      }),
  };
}

export const defaultPromptTemplate = createPromptTemplate('default');

/**
 * ALFWorld: the household instructions and the command forms. The command list follows the
 * text of ALFWorld's own `help` command (see shared/alfworld-spec.md §1); the prose is ours.
 */
export const alfworldPromptTemplate = createPromptTemplate('alfworld', {
  instructions: [
    'You are an agent in a simulated household. You are told what is around you and a task to finish.',
    'Each turn you send one command, and the household answers with what happened.',
    'Commands:',
    '  go to (receptacle)                   walk to a receptacle',
    '  open (receptacle) / close (receptacle)',
    '  take (object) from (receptacle)      pick an object up; you can hold one object at a time',
    '  move (object) to (receptacle)        put the object you hold in or on a receptacle',
    '  (older game files write this one as: put (object) in/on (receptacle))',
    '  heat / cool / clean (object) with (receptacle)   e.g. heat with a microwave, cool with a fridge, clean with a sinkbasin',
    '  use (object)                         e.g. turn on a desklamp',
    '  examine (something), look, inventory',
    'Objects and receptacles carry numbers, e.g. "apple 1", "countertop 2"; write them exactly so.',
    'If the answer is "Nothing happens.", the command was not possible: try another one.',
  ].join('\n'),
});

/** Templates by env id; `promptTemplateFor` falls back to the default template. */
export const promptTemplateRegistry = createRegistry<PromptTemplate>('prompt template');
promptTemplateRegistry.register('default', defaultPromptTemplate);
promptTemplateRegistry.register('alfworld', alfworldPromptTemplate);

export function promptTemplateFor(envId: string): PromptTemplate {
  return promptTemplateRegistry.has(envId) ? promptTemplateRegistry.get(envId) : defaultPromptTemplate;
}
