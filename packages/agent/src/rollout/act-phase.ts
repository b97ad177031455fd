// The act phase of a turn: every episode still acting asks for its action, all in one policy call
// (several samples each where the search wants them); the search decides which answer each turn
// records and which command it plays.
import type { GenerateResult } from '@pilotrl/core';
import { addCompute } from '../search-compute';
import { type EpisodeState, isLive } from './episode-state';
import { toGeneration } from './generation';
import { askPolicy, type PromptedAsk, withMessages } from './policy-asks';
import { endEpisode, joinErrors, promptFor, type WaveContext } from './scheduler';
import type { SearchDecision } from './search-strategy';

export async function chooseActions(
  context: WaveContext,
  live: readonly EpisodeState[],
  turn: number,
): Promise<void> {
  const { agent, strategies } = context;
  const { action, search } = strategies;
  // A malformed plan that ends the episode leaves nothing to act on.
  const terminates = agent.options.formatError.mode === 'terminate';
  const acting = live.filter(
    (episode) => isLive(episode) && !(terminates && episode.thisTurn.formatError !== null),
  );
  const samples = search.samplesPerAct === 1 ? undefined : { count: search.samplesPerAct };
  const asked: (PromptedAsk & { episode: EpisodeState })[] = [];
  for (const episode of acting) {
    const act = action.ask(episode, turn);
    if (act.kind === 'no_actions') {
      endEpisode(episode, { reason: 'no_actions', turn, envError: act.envError });
      continue;
    }
    const messages = promptFor(episode, act.ask.prompt);
    if (messages === undefined) continue;
    asked.push({ episode, request: withMessages(act.ask, messages), samples });
  }
  if (asked.length === 0) return;
  const results = await askPolicy(agent.policy, asked, agent.options.callTimeoutMs, 'act');
  const decisions = await search.decide(
    asked.map(({ episode }, at) => ({ episode, results: results[at]! })),
    turn,
  );
  asked.forEach(({ episode }, at) => {
    const decision = decisions[at]!;
    takeAnswer(context, episode, results[at]![decision.proposal]!, decision, turn);
  });
}

/** Records the answer of the turn and what it plays. */
function takeAnswer(
  { strategies }: WaveContext,
  episode: EpisodeState,
  result: GenerateResult,
  decision: SearchDecision,
  turn: number,
): void {
  const { thisTurn, counts } = episode;
  if (decision.compute !== undefined) addCompute(counts.compute, decision.compute);
  thisTurn.generations.push(toGeneration('act', result));
  const reading = strategies.action.read(episode.current.admissibleActions, result);
  if (reading.kind === 'unreadable') {
    thisTurn.formatError = joinErrors(thisTurn.formatError, reading.formatError);
    thisTurn.move = { thought: null, action: null, text: reading.text };
    return;
  }
  if (reading.rule !== undefined) {
    counts.actionMatches[reading.rule] = (counts.actionMatches[reading.rule] ?? 0) + 1;
  }
  // A command the search chose over the answer's own is what the conversation shows.
  const command = decision.command ?? reading.command;
  const searched = command !== reading.command;
  if (searched) counts.searchOverrides.push(turn);
  thisTurn.move = { thought: reading.thought, action: command, text: searched ? command : reading.text };
}
