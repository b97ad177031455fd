// Plans in the env's plan-step vocabulary: written one trie edge at a time as constrained choices
// (step-trie.ts), so every plan parses; a revision keeps the steps the actions carried out and
// writes the rest anew. Best-of-N drafts N plans side by side, each from its own prompt.
import type { GenerateResult, Generation, Plan, PlanStepVocabulary, Policy } from '@pilotrl/core';
import { type ResolvedAgentOptions, revisionDue } from '../agent';
import { sampleSeed } from '../best-of-n';
import { mixSeed } from '../policy-call';
import type { PromptTemplate } from '../prompt-templates';
import { StepPlanDraft, stepTrie } from '../step-trie';
import { choiceReserve } from '../token-budget';
import { chosenCommand } from './choice-answer';
import type { EpisodeState } from './episode-state';
import { toGeneration } from './generation';
import { ONE_PLAN, onlyDraft, type PlanDraft, type PlanStrategy, type PlanWriter } from './plan-strategy';
import type { PolicyAsk, Samples } from './policy-asks';

interface Settings {
  options: ResolvedAgentOptions;
  policy: Policy;
  template: PromptTemplate;
  vocabulary: PlanStepVocabulary;
  seed: number;
  samples: Samples;
}

export function stepTriePlans(input: Omit<Settings, 'samples'> & { samples?: Samples }): PlanStrategy {
  const settings: Settings = { ...input, samples: input.samples ?? ONE_PLAN };
  const { options, template, vocabulary, samples } = settings;
  const writersOf = (episode: EpisodeState, turn: number): StepPlanWriter[] => {
    const plan = episode.plan.current;
    const fixed = plan === null ? [] : plan.slice(0, episode.plan.executedSteps);
    const steps = vocabulary.steps({ goal: episode.goal, observations: episode.observations });
    const request =
      plan === null ? template.planRequest() : template.revisionRequest({ plan, fixedSteps: fixed.length });
    const trie = stepTrie(steps);
    const emptyVocabulary = steps.length === 0;
    return Array.from(
      { length: samples.count },
      (_, sample) =>
        new StepPlanWriter(settings, episode, {
          turn,
          sample,
          request,
          draft: new StepPlanDraft(trie, fixed, options.maxPlanSteps),
          emptyVocabulary,
        }),
    );
  };
  return {
    write: async (episodes, turn) =>
      episodes
        .filter((episode) => turn === 0 || revisionDue(options.revision, turn, episode))
        .flatMap((episode) => writersOf(episode, turn)),
    choose: onlyDraft,
  };
}

/** One plan written edge by edge; the edge in progress is asked until it is answered. */
class StepPlanWriter implements PlanWriter {
  private readonly previous: Plan | null;
  private readonly generations: Generation[] = [];
  private last: GenerateResult | undefined;
  private asking: { ask: PolicyAsk; choices: string[] } | undefined;

  constructor(
    private readonly settings: Settings,
    readonly episode: EpisodeState,
    private readonly at: {
      turn: number;
      sample: number;
      request: string;
      draft: StepPlanDraft;
      emptyVocabulary: boolean;
    },
  ) {
    this.previous = episode.plan.current;
  }

  next(): PolicyAsk | undefined {
    if (this.at.draft.done) return undefined;
    this.asking ??= this.askEdge(this.generations.length);
    return this.asking.ask;
  }

  answer([result]: readonly GenerateResult[]): void {
    this.generations.push(toGeneration('plan', result!));
    this.last = result;
    this.at.draft.choose(chosenCommand(this.settings.policy.name, this.asking!.choices, result!));
    this.asking = undefined;
  }

  drafts(): PlanDraft[] {
    const { draft, emptyVocabulary } = this.at;
    const { steps } = draft;
    const { previous, generations, last } = this;
    const changed = previous === null || steps.join('\n') !== previous.join('\n');
    return [
      {
        generations,
        last,
        plan: steps.length === 0 || last === undefined ? null : steps,
        outcome:
          steps.length > 0 && changed
            ? {
                kind: 'adopt',
                plan: steps,
                source: 'policy',
                fixedSteps: draft.fixed.length,
                editedFixedSteps: false,
              }
            : { kind: 'keep', editedFixedSteps: false },
        emptyVocabulary,
      },
    ];
  }

  private askEdge(edge: number): { ask: PolicyAsk; choices: string[] } {
    const { options, policy, seed, samples } = this.settings;
    const { turn, sample, request, draft } = this.at;
    const choices = draft.choices();
    const ask: PolicyAsk = {
      prompt: { request: `${request}\n${draft.text()}`, reserveTokens: choiceReserve(policy, choices) },
      request: {
        kind: 'plan',
        maxTokens: options.plan.maxTokens,
        // Samples after the first draw at the search's temperature (see best-of-n.ts).
        temperature:
          sample === 0 ? options.plan.temperature : (samples.temperature ?? options.plan.temperature),
        topP: options.plan.topP,
        choices,
        seed: sampleSeed(mixSeed(seed, this.episode.stream, turn, 0, edge), sample),
      },
      what: 'plan step',
    };
    return { ask, choices };
  }
}
