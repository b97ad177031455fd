// A compact prompt template for small policies trained from scratch: the same conversation as the
// env's template (goal, observation, admissible commands, plan, answer tags) in far fewer tokens,
// because every prompt token is paid for in every forward pass of training and rollout.
import { createPromptTemplate, formatPlan, type PromptTemplate } from '@pilotrl/agent';

/**
 * `listActions: false` leaves the admissible commands out of every message: envs whose
 * observations already name everything that can be acted on (ALFWorld lists the receptacles on
 * arrival and the objects on each visit) then cost a fraction of the tokens per turn.
 */
export function compactPromptTemplate(options: { listActions: boolean }): PromptTemplate {
  const actions = (list: readonly string[]) =>
    !options.listActions || list.length === 0 ? '' : `\nActions: ${list.join(' | ')}`;
  return createPromptTemplate(options.listActions ? 'compact' : 'compact-no-actions', {
    system: (paradigm) =>
      paradigm === 'adaplan'
        ? 'Plan with <global_plan>Step 1: ...</global_plan>, then act with <thought>Step N</thought><action>command</action>.'
        : 'Act with <thought>reason</thought><action>command</action>.',
    intro: ({ task, observation, admissibleActions }) =>
      `${task.length > 0 && !observation.includes(task) ? `Goal: ${task}\n` : ''}${observation}${actions(admissibleActions)}`,
    observation: ({ observation, admissibleActions }) => `${observation}${actions(admissibleActions)}`,
    planRequest: () => 'Plan:',
    revisionRequest: ({ plan, fixedSteps }) =>
      `Plan (steps 1-${fixedSteps} done):\n${formatPlan(plan)}\nRevise:`,
    choiceRequest: ({ candidates }) =>
      `${candidates.map((plan, index) => `Plan ${index + 1}:\n${formatPlan(plan)}`).join('\n')}\nChoose:`,
    actRequest: ({ paradigm, plan, fixedSteps }) =>
      paradigm === 'react' || plan === null || plan.length === 0
        ? 'Act:'
        : `Plan${fixedSteps > 0 ? ` (steps 1-${fixedSteps} done)` : ''}:\n${formatPlan(plan)}\nAct:`,
    commandRequest: ({ paradigm, plan, fixedSteps }) =>
      paradigm === 'react' || plan === null || plan.length === 0
        ? ''
        : `Plan${fixedSteps > 0 ? ` (steps 1-${fixedSteps} done)` : ''}:\n${formatPlan(plan)}`,
  });
}
