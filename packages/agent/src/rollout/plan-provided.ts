// Plans given from outside the policy (an oracle, an LLM, a user) at the start of each episode: one
// is adopted as it is, several are offered to the policy as a constrained choice. Later revisions
// are written by `revisions`, the agent's own plan strategy.
import {
  type GenerateResult,
  InvalidArgumentError,
  type Plan,
  type PlanStepVocabulary,
  type Policy,
} from '@pilotrl/core';
import type { PlanSourceOptions, ResolvedAgentOptions } from '../agent';
import { mixSeed } from '../policy-call';
import { type PromptTemplate, planBlock } from '../prompt-templates';
import type { EpisodeState } from './episode-state';
import { toGeneration } from './generation';
import type { PlanDraft, PlanStrategy, PlanWriter } from './plan-strategy';
import type { PolicyAsk } from './policy-asks';

type ProvidedSource = Extract<PlanSourceOptions, { kind: 'provided' }>;

interface Settings {
  source: ProvidedSource;
  options: ResolvedAgentOptions;
  policy: Policy;
  template: PromptTemplate;
  seed: number;
}

export function providedPlans(
  input: Settings & {
    /** The env's plan-step vocabulary, which every given step must be in. */
    vocabulary: PlanStepVocabulary | undefined;
    /** The agent's own plan strategy, which writes the revisions. */
    revisions: PlanStrategy;
  },
): PlanStrategy {
  const { source, vocabulary, revisions } = input;
  const check = (episode: EpisodeState, candidates: readonly Plan[]) => {
    const { taskId } = episode.group.task;
    if (candidates.length === 0 || candidates.some((plan) => plan.length === 0)) {
      throw new InvalidArgumentError(
        `the ${source.source} plan provider gave no usable plan for task "${taskId}"`,
      );
    }
    if (vocabulary === undefined) return;
    const known = new Set(vocabulary.steps({ goal: episode.goal, observations: episode.observations }));
    const outside = candidates.flat().find((step) => !known.has(step));
    if (outside !== undefined) {
      throw new InvalidArgumentError(
        `the ${source.source} plan for task "${taskId}" has the step "${outside}", which the env's plan-step vocabulary cannot express; give plans in its steps or drop planSteps`,
      );
    }
  };
  return {
    async write(episodes, turn) {
      if (turn !== 0) return revisions.write(episodes, turn);
      const provided = await Promise.all(
        episodes.map((episode) =>
          source.provider({
            task: episode.group.task,
            goal: episode.goal,
            initialObservation: episode.initialObservation,
            admissibleActions: episode.current.admissibleActions,
          }),
        ),
      );
      return episodes.map((episode, at) => {
        const candidates = provided[at]!;
        check(episode, candidates);
        return new ProvidedPlanWriter(input, episode, candidates, turn);
      });
    },
    choose: revisions.choose,
  };
}

/** The given plan, or the policy's choice among the given candidates. */
class ProvidedPlanWriter implements PlanWriter {
  private readonly ask: PolicyAsk | undefined;
  private chosen: PlanDraft | undefined;

  constructor(
    private readonly settings: Settings,
    readonly episode: EpisodeState,
    private readonly candidates: readonly Plan[],
    turn: number,
  ) {
    const { options, template, seed } = settings;
    if (candidates.length === 1) {
      this.chosen = this.adopted(candidates[0]!, undefined);
      return;
    }
    this.ask = {
      prompt: { request: template.choiceRequest({ candidates }), reserveTokens: options.plan.maxTokens },
      request: {
        kind: 'plan',
        maxTokens: options.plan.maxTokens,
        temperature: options.plan.temperature,
        topP: options.plan.topP,
        choices: candidates.map(planBlock),
        seed: mixSeed(seed, episode.stream, turn, 0),
      },
      what: 'plan',
    };
  }

  next(): PolicyAsk | undefined {
    return this.chosen === undefined ? this.ask : undefined;
  }

  answer([result]: readonly GenerateResult[]): void {
    const plan = this.candidates[result!.choiceIndex ?? this.ask!.request.choices!.indexOf(result!.text)];
    if (plan === undefined) {
      throw new InvalidArgumentError(
        `policy "${this.settings.policy.name}" answered a plan choice with neither a valid choiceIndex nor one of the choices`,
      );
    }
    this.chosen = this.adopted(plan, result);
  }

  drafts(): PlanDraft[] {
    return this.chosen === undefined ? [] : [this.chosen];
  }

  private adopted(plan: Plan, result: GenerateResult | undefined): PlanDraft {
    return {
      generations: result === undefined ? [] : [toGeneration('plan', result)],
      last: result,
      plan,
      outcome: {
        kind: 'adopt',
        plan,
        source: this.settings.source.source,
        fixedSteps: 0,
        editedFixedSteps: false,
      },
      emptyVocabulary: false,
    };
  }
}
