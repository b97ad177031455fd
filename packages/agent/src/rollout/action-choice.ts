// Actions chosen among the env's admissible commands by constrained decoding: an answer cannot be
// malformed, and a state with no command to choose from ends the episode (`no_actions`).
import type { Policy } from '@pilotrl/core';
import type { ResolvedAgentOptions } from '../agent';
import { mixSeed } from '../policy-call';
import type { Paradigm, PromptTemplate } from '../prompt-templates';
import { choiceReserve } from '../token-budget';
import type { ActionStrategy } from './action-strategy';
import { chosenCommand } from './choice-answer';
import type { PlanProgress } from './plan-progress';

export function choiceActions(input: {
  options: ResolvedAgentOptions;
  policy: Policy;
  paradigm: Paradigm;
  template: PromptTemplate;
  progress: PlanProgress;
  seed: number;
}): ActionStrategy {
  const { options, policy, paradigm, template, progress, seed } = input;
  const { act } = options;
  return {
    ask(episode, turn) {
      const choices = episode.current.admissibleActions;
      if (choices.length === 0) {
        return { kind: 'no_actions', envError: `the env admits no command to choose from at turn ${turn}` };
      }
      return {
        kind: 'ask',
        ask: {
          prompt: {
            request: template.commandRequest({
              paradigm,
              plan: episode.plan.current,
              fixedSteps: progress.stepsDone(episode),
            }),
            // Room for the choices as the policy scores them (packed, or the longest).
            reserveTokens: choiceReserve(policy, choices),
          },
          request: {
            kind: 'act',
            maxTokens: act.maxTokens,
            temperature: act.temperature,
            topP: act.topP,
            choices: [...choices],
            seed: mixSeed(seed, episode.stream, turn, 1),
          },
          what: 'act',
        },
      };
    },
    command: (admissible, result) => chosenCommand(policy.name, admissible, result),
    read(admissible, result) {
      const command = chosenCommand(policy.name, admissible, result);
      return { kind: 'action', thought: null, command, text: command };
    },
  };
}
