// The plan phase of a turn: the plan strategy hands out writers, whose asks are batched into one
// policy call per round until every plan is written; the strategy then chooses among each
// episode's drafts, and the chosen plan is adopted here.
import { addCompute } from '../search-compute';
import { type EpisodeState, isLive } from './episode-state';
import type { ChosenPlan, PlanWriter, WrittenPlans } from './plan-strategy';
import { askPolicy, type PromptedAsk, withMessages } from './policy-asks';
import { joinErrors, promptFor, type WaveContext } from './scheduler';

export async function writePlans(
  context: WaveContext,
  live: readonly EpisodeState[],
  turn: number,
): Promise<void> {
  // A revision on a stall reads how far each episode is through its plan.
  if (context.agent.options.revision.mode === 'on_stall') {
    for (const episode of live) episode.plan.stepsDone = context.strategies.progress.stepsDone(episode);
  }
  const writers = await context.strategies.plan.write(live, turn);
  if (writers.length === 0) return;
  for (const writer of writers) writer.episode.plan.askedAt = turn;
  await answerWriters(context, writers);
  // Writers come episode by episode: an episode's drafts are those of its run of writers.
  const written: WrittenPlans[] = [];
  for (const writer of writers) {
    const drafts = writer.drafts();
    if (drafts.length === 0) continue;
    const current = written.at(-1);
    if (current?.episode === writer.episode) current.drafts.push(...drafts);
    else written.push({ episode: writer.episode, drafts });
  }
  const chosen = await context.strategies.plan.choose(written);
  for (const [at, { episode }] of written.entries()) adoptChosen(episode, chosen[at]!, turn);
}

/** Round after round, one policy call for the asks of all writers still writing for live episodes. */
async function answerWriters(context: WaveContext, writers: readonly PlanWriter[]): Promise<void> {
  const { agent } = context;
  for (;;) {
    // The round's writers are those open as it starts: an episode a prompt of this round ends
    // still has its other writers' prompts built.
    const open = writers.filter((writer) => isLive(writer.episode) && writer.next() !== undefined);
    const asked: (PromptedAsk & { writer: PlanWriter; what: string })[] = [];
    for (const writer of open) {
      const ask = writer.next()!;
      const messages = promptFor(writer.episode, ask.prompt);
      if (messages === undefined || !isLive(writer.episode)) continue;
      asked.push({
        writer,
        what: ask.what,
        request: withMessages(ask, messages),
        samples: ask.samples,
      });
    }
    if (asked.length === 0) return;
    const results = await askPolicy(agent.policy, asked, agent.options.callTimeoutMs, asked[0]!.what);
    for (const [at, { writer }] of asked.entries()) writer.answer(results[at]!);
  }
}

function adoptChosen(episode: EpisodeState, { draft, compute }: ChosenPlan, turn: number): void {
  const { thisTurn, counts, plan } = episode;
  thisTurn.generations.push(...draft.generations);
  if (compute !== undefined) addCompute(counts.compute, compute);
  if (draft.emptyVocabulary) counts.emptyPlanVocabularies += 1;
  const { outcome } = draft;
  if (outcome.kind === 'unreadable') {
    thisTurn.formatError = joinErrors(thisTurn.formatError, outcome.formatError);
    return;
  }
  if (outcome.editedFixedSteps) counts.fixedStepEdits += 1;
  if (outcome.kind === 'adopt') {
    plan.current = outcome.plan;
    plan.history.push({ turn, steps: outcome.plan, source: outcome.source, fixedSteps: outcome.fixedSteps });
  }
}
