// Stage-1 plans from a strong LLM: the model behind an OpenAI-compatible endpoint is asked for a
// global plan with the same prompt the agent would see, and its answer is parsed strictly. A plan
// that does not parse is an error naming the task, never a silent empty plan.
import { type PlanProvider, type PromptTemplate, parsePlanOutput, promptTemplateFor } from '@pilotrl/agent';
import { InvalidArgumentError, type Policy } from '@pilotrl/core';

export function llmPlanProvider(
  client: Policy,
  envId: string,
  options: { template?: PromptTemplate; maxTokens?: number } = {},
): PlanProvider {
  const template = options.template ?? promptTemplateFor(envId);
  return async ({ task, goal, initialObservation, admissibleActions }) => {
    const [result] = await client.generate([
      {
        kind: 'plan',
        messages: [
          { role: 'system', content: template.system('adaplan') },
          {
            role: 'user',
            content: `${template.intro({ task: goal, observation: initialObservation, admissibleActions })}\n\n${template.planRequest()}`,
          },
        ],
        maxTokens: options.maxTokens ?? 512,
        temperature: 0,
        stop: ['</global_plan>'],
      },
    ]);
    const parsed = parsePlanOutput(result!.text);
    if (!parsed.ok) {
      throw new InvalidArgumentError(
        `${client.name} wrote no valid plan for task ${task.taskId}: ${parsed.message}`,
      );
    }
    return [parsed.steps];
  };
}
