// The strategies of one agent, chosen once before its rollout plays: how prompts are built, how
// plans are written (and chosen), how far a plan is carried out, how actions are read, and how a
// decision is searched.
import { ConfigError, canCopyAt, type VectorEnv } from '@pilotrl/core';
import type { Agent } from '../agent';
import { promptTemplateFor } from '../prompt-templates';
import type { ResolvedTestTimeSearch } from '../test-time-search';
import { type TokenCounter, tokenCounterFor } from '../token-budget';
import { choiceActions } from './action-choice';
import { freeTextActions } from './action-free-text';
import type { ActionStrategy } from './action-strategy';
import { bestOfNPlans } from './plan-best-of-n';
import { freeTextPlans } from './plan-free-text';
import { executedStepProgress, type PlanProgress, trackedStepProgress } from './plan-progress';
import { providedPlans } from './plan-provided';
import { stepTriePlans } from './plan-step-trie';
import { noPlans, type PlanStrategy } from './plan-strategy';
import type { Samples } from './policy-asks';
import { conversationPrompts } from './prompt-conversation';
import { stateViewPrompts } from './prompt-state-view';
import type { PromptStrategy } from './prompt-strategy';
import { lookaheadSearch, type Playout } from './search-lookahead';
import { noSearch, type SearchStrategy } from './search-strategy';

export interface RolloutStrategies {
  prompt: PromptStrategy;
  plan: PlanStrategy;
  progress: PlanProgress;
  action: ActionStrategy;
  search: SearchStrategy;
  count: TokenCounter;
}

export function strategiesFor(
  agent: Agent,
  context: {
    envId: string;
    seed: number;
    vectorEnv: VectorEnv;
    search: ResolvedTestTimeSearch | undefined;
    playout: Playout;
  },
): RolloutStrategies {
  const { options, policy, paradigm } = agent;
  const { envId, seed, vectorEnv, search } = context;
  const template = options.promptTemplate ?? promptTemplateFor(envId);
  const count = tokenCounterFor(policy);
  const { contextTokens } = options;
  const prompt: PromptStrategy =
    options.view === undefined
      ? conversationPrompts({ template, paradigm, contextTokens, historyTurns: options.historyTurns, count })
      : stateViewPrompts({ view: options.view, contextTokens, count });
  const vocabulary = options.planSteps;
  const progress =
    vocabulary === undefined ? trackedStepProgress(options.stepTracker) : executedStepProgress(vocabulary);
  const action =
    options.actionSpace === 'choice'
      ? choiceActions({ options, policy, paradigm, template, progress, seed })
      : freeTextActions({ options, paradigm, template, progress, seed });

  const ownPlans = (samples?: Samples) =>
    vocabulary === undefined
      ? freeTextPlans({ options, template, seed, samples })
      : stepTriePlans({ options, policy, template, vocabulary, seed, samples });
  const agentPlans = (samples?: Samples) =>
    options.planSource.kind === 'provided'
      ? providedPlans({
          source: options.planSource,
          options,
          policy,
          template,
          vocabulary,
          seed,
          revisions: ownPlans(samples),
        })
      : ownPlans(samples);
  const plan =
    paradigm !== 'adaplan'
      ? noPlans
      : search?.kind === 'best-of-n'
        ? bestOfNPlans({ search, count, plans: agentPlans })
        : agentPlans();

  let searchStrategy: SearchStrategy = noSearch;
  if (search?.kind === 'lookahead') {
    if (!canCopyAt(vectorEnv)) throw new ConfigError('lookahead search needs a vector env with copyAt()');
    searchStrategy = lookaheadSearch({
      search,
      agent,
      vectorEnv,
      envId,
      seed,
      action,
      progress,
      count,
      playout: context.playout,
    });
  }
  return { prompt, plan, progress, action, search: searchStrategy, count };
}
