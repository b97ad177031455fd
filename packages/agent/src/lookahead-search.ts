// Look-ahead search over copies of the env's state: at each decision, up to `width` candidate
// actions (the policy's sampled answers, or the best-ranked choices of a constrained choice) are
// each played on a copy of the episode, then followed by the policy's greedy play up to `depth`
// steps in all, the branches of all episodes in one batched rollout (two where some follow a plan
// and some have none). A branch is worth its outcome (won 1, ended otherwise -1) or, still
// running, 0 (rollout scorer) or the value head's estimate (value scorer). A branch is abandoned
// (a backtrack) when it fails the search's branch check or it is worth less than the state it
// started from; the best branch left is played on the real env. Ties go to a branch that carried
// out the plan's next step, where the env can check plan steps (StepChecks), then to the policy's
// own preference. With no branch left the policy's first answer is played.
import {
  type CopyableEnv,
  canCheckSteps,
  type Episode,
  type GenerateResult,
  type Plan,
  type StepCheck,
  type StepResult,
  type TaskRef,
  type VectorEnv,
  type VectorStateCopies,
} from '@pilotrl/core';
import { type Agent, createAdaPlanAgent, createReActAgent } from './agent';
import { discardedTokens } from './best-of-n';
import { resumedEnv } from './resumed-env';
import type { RolloutHooks, RolloutOptions } from './rollout/rollout-options';
import { emptyCompute, generatedTokensOf, type SearchCompute } from './search-compute';
import type { LookaheadSearch } from './test-time-search';
import type { TokenCounter } from './token-budget';
import { createVectorEnv } from './vector-env';

/** One decision of one episode, with the policy's answers to it. */
export interface LookaheadDecision {
  /** The episode's env in the vector env. */
  slot: number;
  task: TaskRef;
  goal: string;
  plan: Plan | null;
  stepsDone: number;
  current: StepResult;
  /** The policy's answers in its order of preference, each with the command it names (null: unreadable). */
  proposals: readonly { result: GenerateResult; command: string | null }[];
}

/** What look-ahead decided: which answer to record, the command to play, and what it cost. */
export interface LookaheadChoice {
  /** The answer recorded for the turn (index into `proposals`). */
  proposal: number;
  /** The command to play; null when no answer named one. */
  command: string | null;
  compute: SearchCompute;
}

interface Candidate {
  command: string;
  /** The answer that named it; undefined for a choice ranked, not sampled. */
  proposal: number | undefined;
}

type Playout = (
  agent: Agent,
  vectorEnv: VectorEnv,
  options: RolloutOptions,
  hooks?: RolloutHooks,
) => Promise<Episode[]>;

/** The candidates of a decision: distinct sampled commands, or the choices ranked by the policy's logprobs. */
function candidatesOf(decision: LookaheadDecision, width: number): Candidate[] {
  const first = decision.proposals[0]!;
  const choices = decision.current.admissibleActions;
  if (
    decision.proposals.length === 1 &&
    first.result.choiceLogprobs !== undefined &&
    first.command !== null
  ) {
    const logprobs = first.result.choiceLogprobs;
    const ranked = choices
      .map((command, index) => ({ command, logprob: logprobs[index] ?? Number.NEGATIVE_INFINITY }))
      .filter(({ command }) => command !== first.command)
      .sort((a, b) => b.logprob - a.logprob);
    return [
      { command: first.command, proposal: 0 },
      ...ranked.slice(0, width - 1).map(({ command }) => ({ command, proposal: undefined })),
    ];
  }
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  decision.proposals.forEach(({ command }, proposal) => {
    if (command === null || seen.has(command) || candidates.length >= width) return;
    seen.add(command);
    candidates.push({ command, proposal });
  });
  return candidates;
}

/** A check of the plan step in force, where the copy can check it. */
function nextStepCheck(copy: CopyableEnv, decision: LookaheadDecision): StepCheck | undefined {
  const step = decision.plan?.[decision.stepsDone];
  if (step === undefined || !canCheckSteps(copy) || copy.cannotCheckStep(step) !== undefined)
    return undefined;
  return copy.checkStep(step);
}

const ended = (result: StepResult) =>
  result.terminated || result.truncated || result.info.error !== undefined;
const outcome = (won: boolean) => (won ? 1 : -1);

/** One candidate played on a copy, waiting for its score. */
interface Branch {
  decision: number;
  candidate: Candidate;
  copy: CopyableEnv;
  result: StepResult;
  score: number | undefined;
  /** The env's check of the plan's next step, started on the copy before the candidate's step. */
  stepCheck: StepCheck | undefined;
  /** Sequence whose value stands for the branch when it is still running where it stops. */
  leaf: readonly number[];
}

/**
 * Chooses the action of every decision by look-ahead. `playout` is the rollout that plays the
 * branches on (the batched one, passed in by the rollout that calls this).
 */
export async function searchByLookahead(input: {
  search: LookaheadSearch;
  agent: Agent;
  vectorEnv: VectorEnv & VectorStateCopies;
  envId: string;
  decisions: readonly LookaheadDecision[];
  seed: number;
  count: TokenCounter;
  playout: Playout;
}): Promise<LookaheadChoice[]> {
  const { search, vectorEnv, decisions, count } = input;
  const computes = decisions.map(() => emptyCompute());
  const candidates = decisions.map((decision) => candidatesOf(decision, search.width));
  const branches: Branch[] = [];
  await Promise.all(
    decisions.map(async (decision, index) => {
      for (const candidate of candidates[index]!) {
        const copy = await vectorEnv.copyAt(decision.slot);
        const stepCheck = nextStepCheck(copy, decision);
        const result = await copy.step(candidate.command);
        computes[index]!.copies += 1;
        computes[index]!.envSteps += 1;
        const first = decision.proposals[0]!.result;
        const own =
          candidate.proposal === undefined ? undefined : decision.proposals[candidate.proposal]!.result;
        const leaf =
          own !== undefined
            ? [...own.promptTokenIds, ...own.tokenIds]
            : search.scorer.kind === 'value'
              ? [...first.promptTokenIds, ...search.scorer.model.encode(candidate.command)]
              : [];
        const score = ended(result) ? outcome(result.info.won) : undefined;
        branches.push({ decision: index, candidate, copy, result, score, stepCheck, leaf });
      }
    }),
  );
  branches.sort((a, b) => a.decision - b.decision);
  await playBranches(
    input,
    branches.filter((branch) => branch.score === undefined && search.depth > 1),
    computes,
  );
  const baselines = await scoreLeaves(input, branches, computes);
  // Step checks read the copies, so they are read before the copies close.
  const stepsPassed = new Map(branches.map((branch) => [branch, branch.stepCheck?.passed() === true]));
  for (const branch of branches) await branch.copy.close?.();

  return decisions.map((decision, index) => {
    const compute = computes[index]!;
    const own = branches.filter((branch) => branch.decision === index);
    const kept = own.filter((branch) => {
      const checked =
        search.branchCheck === undefined ||
        search.branchCheck({
          plan: decision.plan,
          stepsDone: decision.stepsDone,
          action: branch.candidate.command,
          result: branch.result,
        });
      const abandoned = !checked || branch.score! < baselines[index]! - search.valueDropTolerance;
      if (abandoned) compute.backtracks += 1;
      return !abandoned;
    });
    const passed = (branch: Branch) => (stepsPassed.get(branch) ? 1 : 0);
    const best = kept.reduce<Branch | undefined>((top, branch) => {
      if (top === undefined || branch.score! > top.score!) return branch;
      return branch.score === top.score && passed(branch) > passed(top) ? branch : top;
    }, undefined);
    const played = best?.candidate ?? candidates[index]![0];
    const proposal = played?.proposal ?? 0;
    decision.proposals.forEach(({ result }, at) => {
      if (at !== proposal) compute.generatedTokens += discardedTokens(result, count);
    });
    return { proposal, command: played?.command ?? decision.proposals[0]!.command, compute };
  });
}

/**
 * Plays every running branch on with the policy, greedily, for the rest of the depth: one rollout
 * for the branches with a plan in force (an AdaPlan agent following it) and one for the others
 * (a ReAct agent).
 */
async function playBranches(
  input: Parameters<typeof searchByLookahead>[0],
  running: Branch[],
  computes: SearchCompute[],
): Promise<void> {
  const { search, agent, decisions, envId, seed, count, playout } = input;
  const greedy = {
    ...agent.options,
    act: { ...agent.options.act, temperature: 0 },
    maxTurns: search.depth - 1,
  };
  const groups = [
    running.filter((branch) => agent.paradigm === 'adaplan' && decisions[branch.decision]!.plan !== null),
    running.filter((branch) => agent.paradigm !== 'adaplan' || decisions[branch.decision]!.plan === null),
  ];
  for (const [group, members] of groups.entries()) {
    if (members.length === 0) continue;
    const tasks = members.map((branch, at) => ({
      ...decisions[branch.decision]!.task,
      taskId: `${decisions[branch.decision]!.task.taskId}#branch-${at}`,
    }));
    const plans = new Map(tasks.map((task, at) => [task.taskId, decisions[members[at]!.decision]!.plan!]));
    const follower =
      group === 0
        ? createAdaPlanAgent(agent.policy, {
            ...greedy,
            // The branch's plan is given as it stands; a vocabulary's check of it against the
            // branch's observations is left to the real episode.
            planSteps: undefined,
            planSource: {
              kind: 'provided',
              source: 'external',
              provider: async ({ task }) => [plans.get(task.taskId)!],
            },
            revision: { mode: 'never' },
          })
        : createReActAgent(agent.policy, greedy);
    const vectorEnv = createVectorEnv(members.map((branch) => () => resumedEnv(branch.copy, branch.result)));
    try {
      const episodes = await playout(
        follower,
        vectorEnv,
        {
          envId,
          tasks,
          goals: members.map((branch) => decisions[branch.decision]!.goal),
          runId: 'lookahead',
          seed,
        },
        // Branches resume episodes mid-way: a branch's first turn is not an episode's turn 0.
        { onTurnZeroEnds: () => {} },
      );
      episodes.forEach((episode, at) => {
        const branch = members[at]!;
        const compute = computes[branch.decision]!;
        compute.envSteps += episode.turns.filter((turn) => turn.action !== null).length;
        for (const turn of episode.turns) {
          for (const generation of turn.generations)
            compute.generatedTokens += generatedTokensOf(generation, count);
        }
        const lastAct = episode.turns
          .at(-1)
          ?.generations.filter((g) => g.kind === 'act')
          .at(-1);
        if (lastAct !== undefined) branch.leaf = lastAct.tokenIds;
        if (episode.metadata.endReason === 'env_done' || episode.metadata.endReason === 'env_error') {
          branch.score = outcome(episode.won);
        }
      });
    } finally {
      await vectorEnv.close();
    }
  }
}

/**
 * Scores the branches still running where they stop, and gives each decision the score of the state
 * it started from: 0 for the rollout scorer, the value head's estimate before acting for the value
 * scorer.
 */
async function scoreLeaves(
  input: Parameters<typeof searchByLookahead>[0],
  branches: Branch[],
  computes: SearchCompute[],
): Promise<number[]> {
  const { search, decisions } = input;
  const open = branches.filter((branch) => branch.score === undefined);
  if (search.scorer.kind === 'rollout') {
    for (const branch of open) branch.score = 0;
    return decisions.map(() => 0);
  }
  const starts = decisions.map((decision) => decision.proposals[0]!.result.promptTokenIds);
  const sequences = [...open.map((branch) => branch.leaf), ...starts];
  const values = await search.scorer.model.values(sequences);
  open.forEach((branch, at) => {
    branch.score = values[at]!;
    computes[branch.decision]!.scoredTokens += branch.leaf.length;
  });
  starts.forEach((start, at) => {
    computes[at]!.scoredTokens += start.length;
  });
  return values.slice(open.length);
}
