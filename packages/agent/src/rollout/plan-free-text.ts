// Free-text plans: the policy writes `<global_plan>Step 1: …</global_plan>` at the start and,
// when a revision is due, rewrites it; the steps the step tracker reads as done stay as they were.
// An unreadable plan is a format error of the turn.
import type { GenerateResult, Plan } from '@pilotrl/core';
import { type ResolvedAgentOptions, revisionDue } from '../agent';
import { parsePlanOutput } from '../output-parser';
import { mixSeed } from '../policy-call';
import type { PromptTemplate } from '../prompt-templates';
import { type EpisodeState, thoughtsOf } from './episode-state';
import { toGeneration } from './generation';
import {
  ONE_PLAN,
  onlyDraft,
  type PlanDraft,
  type PlanOutcome,
  type PlanStrategy,
  type PlanWriter,
} from './plan-strategy';
import type { PolicyAsk, Samples } from './policy-asks';

interface Settings {
  options: ResolvedAgentOptions;
  template: PromptTemplate;
  seed: number;
  samples: Samples;
}

export function freeTextPlans(input: Omit<Settings, 'samples'> & { samples?: Samples }): PlanStrategy {
  const settings = { ...input, samples: input.samples ?? ONE_PLAN };
  const { revision } = input.options;
  return {
    write: async (episodes, turn) =>
      episodes
        .filter((episode) => turn === 0 || revisionDue(revision, turn, episode))
        .map((episode) => new FreeTextPlanWriter(settings, episode, turn)),
    choose: onlyDraft,
  };
}

/** One prompt for a plan or a revision, answered with one sample per plan wanted. */
class FreeTextPlanWriter implements PlanWriter {
  private readonly plan: Plan | null;
  private readonly fixedSteps: number;
  private readonly ask: PolicyAsk;
  private answers: readonly GenerateResult[] | undefined;

  constructor(
    private readonly settings: Settings,
    readonly episode: EpisodeState,
    turn: number,
  ) {
    const { options, template, seed, samples } = settings;
    const plan = episode.plan.current;
    const fixedSteps = plan === null ? 0 : options.stepTracker({ plan, thoughts: thoughtsOf(episode) });
    this.plan = plan;
    this.fixedSteps = fixedSteps;
    this.ask = {
      prompt: {
        request: plan === null ? template.planRequest() : template.revisionRequest({ plan, fixedSteps }),
        reserveTokens: options.plan.maxTokens,
      },
      request: {
        kind: 'plan',
        maxTokens: options.plan.maxTokens,
        temperature: options.plan.temperature,
        topP: options.plan.topP,
        stop: ['</global_plan>'],
        seed: mixSeed(seed, episode.stream, turn, 0),
      },
      what: 'plan',
      ...(samples.count === 1 ? {} : { samples }),
    };
  }

  next(): PolicyAsk | undefined {
    return this.answers === undefined ? this.ask : undefined;
  }

  answer(results: readonly GenerateResult[]): void {
    this.answers = results;
  }

  drafts(): PlanDraft[] {
    return (this.answers ?? []).map((result) => this.draftOf(result));
  }

  private draftOf(result: GenerateResult): PlanDraft {
    const generations = [toGeneration('plan', result)];
    const parsed = parsePlanOutput(result.text, { maxPlanSteps: this.settings.options.maxPlanSteps });
    const written = parsed.ok ? parsed.steps : null;
    return {
      generations,
      last: result,
      plan: written,
      outcome: this.outcomeOf(parsed),
      emptyVocabulary: false,
    };
  }

  private outcomeOf(parsed: ReturnType<typeof parsePlanOutput>): PlanOutcome {
    const { plan, fixedSteps } = this;
    if (!parsed.ok) return { kind: 'unreadable', formatError: `plan ${parsed.code}: ${parsed.message}` };
    if (plan === null) {
      return { kind: 'adopt', plan: parsed.steps, source: 'policy', fixedSteps: 0, editedFixedSteps: false };
    }
    const fixed = plan.slice(0, fixedSteps);
    const editedFixedSteps = fixed.some((step, position) => parsed.steps[position] !== step);
    const revised = [...fixed, ...parsed.steps.slice(fixedSteps)];
    const changed = revised.length > 0 && revised.join('\n') !== plan.join('\n');
    return changed
      ? { kind: 'adopt', plan: revised, source: 'policy', fixedSteps, editedFixedSteps }
      : { kind: 'keep', editedFixedSteps };
  }
}
