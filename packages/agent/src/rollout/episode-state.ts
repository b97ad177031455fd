// What the rollout knows of one episode while it plays: where it stands, what it recorded, how it
// ended and the counts its metadata reports. Strategies read it; only the scheduler changes it.
import type {
  Generation,
  Plan,
  PlanRevision,
  StepCheckRecorder,
  StepResult,
  TaskRef,
  Turn,
} from '@pilotrl/core';
import { emptyCompute, type SearchCompute } from '../search-compute';
import type { EpisodePrompts } from './prompt-strategy';

/** Why an episode ended, in `metadata.endReason`. */
export type EndReason =
  | 'env_done'
  | 'max_turns'
  | 'format_error'
  | 'context_overflow'
  | 'env_error'
  /** The `choice` action space met a state where the env admits no command. */
  | 'no_actions';

/** G samples of one task: they share the task, its env seed and the group id GRPO compares them by. */
export interface EpisodeGroup {
  groupId: string;
  task: TaskRef;
  /** The task's position in the rollout's task list. */
  taskIndex: number;
  members: EpisodeState[];
}

export interface EpisodeEnd {
  reason: EndReason;
  /** The turn during which the episode ended (0: at reset or in its first turn). */
  turn: number;
  /** What the env (or the rollout, for `no_actions`) said went wrong. */
  envError?: string;
  /** context_overflow: the smallest prompt the agent could build and the tokens it had. */
  prompt?: { tokens: number; budgetTokens: number };
}

/** The plan in force and how far the actions carried it out. */
export interface PlanState {
  current: Plan | null;
  history: PlanRevision[];
  /** With a plan-step vocabulary: how many steps of the plan in force the actions carried out. */
  executedSteps: number;
  /** The plan steps done before each turn's action. */
  stepsDoneByTurn: number[];
  /** The turn before whose action a plan was last asked for (a revision may keep the plan as it was). */
  askedAt: number;
  /** The plan steps done by now, as the plan phase of the turn in progress found them. */
  stepsDone: number;
}

/** The counts an episode's metadata reports. */
export interface EpisodeCounts {
  contextCuts: number;
  omittedTurnsMax: number;
  /** Actions read per action-matcher rule. */
  actionMatches: Record<string, number>;
  /** Free-text revisions that changed a step already carried out (it is kept as it was). */
  fixedStepEdits: number;
  /** Plan phases in which the plan-step vocabulary offered no step at all. */
  emptyPlanVocabularies: number;
  /** What a search spent beyond the episode's own generations and steps. */
  compute: SearchCompute;
  /** Turns whose command a look-ahead chose over the policy's recorded answer. */
  searchOverrides: number[];
}

/** What the turn in progress has produced before the env step. */
export interface TurnInProgress {
  generations: Generation[];
  formatError: string | null;
  /** What the answer said and the command it plays (null: nothing to play). */
  move: { thought: string | null; action: string | null; text: string };
}

export interface EpisodeState {
  group: EpisodeGroup;
  sampleIndex: number;
  /** The episode's env in the vector env. */
  slot: number;
  /** Distinct per episode of the run, mixed into sampling seeds. */
  stream: number;
  goal: string;
  initialObservation: string;
  current: StepResult;
  /** Every observation so far, the opening one first (what a plan-step vocabulary is built from). */
  observations: string[];
  turns: Turn[];
  plan: PlanState;
  /** The episode's prompts, as the prompt strategy builds them. */
  prompts: EpisodePrompts;
  /** With `recordStepChecks`: the checks of the plan in force, against this episode's env. */
  stepChecks: StepCheckRecorder | null;
  counts: EpisodeCounts;
  thisTurn: TurnInProgress;
  end: EpisodeEnd | null;
}

export function openEpisode(input: {
  group: EpisodeGroup;
  sampleIndex: number;
  slot: number;
  stream: number;
  goal: string;
  start: StepResult;
  prompts: EpisodePrompts;
}): EpisodeState {
  const { group, sampleIndex, slot, stream, goal, start, prompts } = input;
  // Every field spelled out: an object spread here would leave the state a slow dictionary object.
  return {
    group,
    sampleIndex,
    slot,
    stream,
    goal,
    prompts,
    initialObservation: start.observation,
    current: start,
    observations: [start.observation],
    turns: [],
    plan: { current: null, history: [], executedSteps: 0, stepsDoneByTurn: [], askedAt: 0, stepsDone: 0 },
    stepChecks: null,
    counts: {
      contextCuts: 0,
      omittedTurnsMax: 0,
      actionMatches: {},
      fixedStepEdits: 0,
      emptyPlanVocabularies: 0,
      compute: emptyCompute(),
      searchOverrides: [],
    },
    thisTurn: newTurn(),
    end: null,
  };
}

export const newTurn = (): TurnInProgress => ({
  generations: [],
  formatError: null,
  move: { thought: null, action: null, text: '' },
});

export const isLive = (episode: EpisodeState) => episode.end === null;

/** Whether the turn in progress is recorded: the episode is live, or generated something before it ended. */
export const isRecorded = (episode: EpisodeState) =>
  episode.end === null || episode.thisTurn.generations.length > 0;

export const episodeIdOf = (episode: EpisodeState) => `${episode.group.groupId}/${episode.sampleIndex}`;

/** What a plan of this episode is written for: the task, the goal and the latest observation. */
export const planContextOf = (episode: EpisodeState) => ({
  task: episode.group.task,
  goal: episode.goal,
  observation: episode.current.observation,
});

export const thoughtsOf = (episode: EpisodeState) => episode.turns.map((turn) => turn.thought);
