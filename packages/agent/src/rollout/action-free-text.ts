// Free-text actions: the policy writes `<thought>…</thought><action>…</action>`, an unreadable
// answer is a format error, and the action is matched onto an admissible command.
import type { ResolvedAgentOptions } from '../agent';
import { parseActOutput } from '../output-parser';
import { mixSeed } from '../policy-call';
import type { Paradigm, PromptTemplate } from '../prompt-templates';
import type { ActionStrategy } from './action-strategy';
import type { PlanProgress } from './plan-progress';

export function freeTextActions(input: {
  options: ResolvedAgentOptions;
  paradigm: Paradigm;
  template: PromptTemplate;
  progress: PlanProgress;
  seed: number;
}): ActionStrategy {
  const { options, paradigm, template, progress, seed } = input;
  const { act, actionMatcher } = options;
  const parse = (text: string) =>
    parseActOutput(text, { maxActionChars: options.maxActionChars, maxPlanSteps: options.maxPlanSteps });
  return {
    ask: (episode, turn) => ({
      kind: 'ask',
      ask: {
        prompt: {
          request: template.actRequest({
            paradigm,
            plan: episode.plan.current,
            fixedSteps: progress.stepsDone(episode),
          }),
          reserveTokens: act.maxTokens,
        },
        request: {
          kind: 'act',
          maxTokens: act.maxTokens,
          temperature: act.temperature,
          topP: act.topP,
          stop: ['</action>'],
          seed: mixSeed(seed, episode.stream, turn, 1),
        },
        what: 'act',
      },
    }),
    command(admissible, result) {
      const parsed = parse(result.text);
      return parsed.ok ? actionMatcher.match(parsed.action, admissible).command : null;
    },
    read(admissible, result) {
      const parsed = parse(result.text);
      if (!parsed.ok) {
        return { kind: 'unreadable', formatError: `${parsed.code}: ${parsed.message}`, text: result.text };
      }
      const match = actionMatcher.match(parsed.action, admissible);
      return {
        kind: 'action',
        thought: parsed.thought,
        command: match.command,
        text: result.text,
        rule: match.rule,
      };
    },
  };
}
