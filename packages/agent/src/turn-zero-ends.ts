// Loud failures for rollouts that never started: when most episodes end at turn 0 (the first
// prompt does not fit the context, the env admits no command, the env fails at once), every
// episode loses, nothing is trained on, and a run would otherwise print zeros without a word.
// The rollout reports it once per cause: to its caller's hook, else as a process warning.

/** The turn-0 ends that point at the setup rather than at the model. */
export type TurnZeroCause = 'context_overflow' | 'no_actions' | 'env_error';

/** Why one episode ended at turn 0, as the rollout saw it. */
export interface TurnZeroEnd {
  cause: TurnZeroCause;
  /** context_overflow: the smallest prompt the agent could build and the tokens the context left it. */
  prompt?: { tokens: number; budgetTokens: number };
  /** The episode's opening observation, in characters. */
  openingChars: number;
  /** env_error, no_actions: what the env or the rollout said. */
  envError?: string;
}

/** Most episodes of a rollout ended at turn 0 for `cause`: what happened, in numbers, and how to fix it. */
export interface TurnZeroReport {
  cause: TurnZeroCause;
  envId: string;
  /** Episodes that ended at turn 0 for this cause, of `total` played. */
  episodes: number;
  total: number;
  /**
   * context_overflow: the largest of the smallest first prompts (tokens), the fewest tokens the
   * context left a prompt (`contextTokens` less what is kept for the answer), the agent's
   * `contextTokens`, the longest opening observation (characters) and what counted the tokens.
   */
  overflow?: {
    promptTokens: number;
    budgetTokens: number;
    contextTokens: number;
    openingChars: number;
    counter: 'policy.countTokens' | 'estimateTokens';
  };
  /** env_error, no_actions: the first episode's error. */
  envError?: string;
  /** The warning's text: what happened and the agent options that fix it. */
  message: string;
}

/** The `process.emitWarning` code of each cause, stable across releases. */
export const TURN_ZERO_WARNING_CODES: Readonly<Record<TurnZeroCause, string>> = {
  context_overflow: 'PILOTRL_TURN_ZERO_CONTEXT_OVERFLOW',
  no_actions: 'PILOTRL_TURN_ZERO_NO_ACTIONS',
  env_error: 'PILOTRL_TURN_ZERO_ENV_ERROR',
};

/** Fewest turn-0 ends that count as "most" (fewer in a rollout of fewer episodes). */
const AT_LEAST = 3;

/**
 * One report per cause when more than half of `total` episodes, and at least a few, ended at
 * turn 0; none otherwise.
 */
export function turnZeroReports(
  ends: readonly TurnZeroEnd[],
  context: { envId: string; total: number; contextTokens: number; countsExactly: boolean },
): TurnZeroReport[] {
  const { total } = context;
  if (ends.length * 2 <= total || ends.length < Math.min(AT_LEAST, total)) return [];
  const causes = [...new Set(ends.map((end) => end.cause))];
  return causes.map((cause) => {
    const these = ends.filter((end) => end.cause === cause);
    const head = `${these.length} of ${total} episodes on "${context.envId}" ended at turn 0 with endReason '${cause}'`;
    const envError = these.find((end) => end.envError !== undefined)?.envError;
    if (cause === 'context_overflow') {
      const prompts = these.flatMap((end) => (end.prompt === undefined ? [] : [end.prompt]));
      const overflow = {
        promptTokens: Math.max(...prompts.map((prompt) => prompt.tokens)),
        budgetTokens: Math.min(...prompts.map((prompt) => prompt.budgetTokens)),
        contextTokens: context.contextTokens,
        openingChars: Math.max(...these.map((end) => end.openingChars)),
        counter: context.countsExactly ? ('policy.countTokens' as const) : ('estimateTokens' as const),
      };
      const kept = overflow.contextTokens - overflow.budgetTokens;
      const message =
        `${head}: the smallest first prompt the agent could build takes ${overflow.promptTokens} tokens ` +
        `(counted by ${overflow.counter}; the opening observation alone is ${overflow.openingChars} characters), ` +
        `but contextTokens ${overflow.contextTokens} less ${kept} kept for the answer leaves ${overflow.budgetTokens}. ` +
        'These episodes generate nothing, so they win nothing and train nothing. Fix: raise the agent option ' +
        "contextTokens (and the policy's own context length with it), prompt with a state view (the agent option " +
        '`view`, e.g. latestObservationView of @pilotrl/core) instead of the conversation, lower act.maxTokens or ' +
        'plan.maxTokens, or have the env open with a shorter first observation.';
      return { cause, envId: context.envId, episodes: these.length, total, overflow, message };
    }
    const message =
      cause === 'no_actions'
        ? `${head}: the env admitted no command to choose from at the start, and the agent's actionSpace is 'choice'. ` +
          "Fix: have the env list its commands (admissibleActions) from reset on, or use actionSpace 'free-text'."
        : `${head}: ${envError ?? 'the env failed'}. The env failed on reset or on its first step; ` +
          'metadata.envError of each episode says why.';
    return {
      cause,
      envId: context.envId,
      episodes: these.length,
      total,
      ...(envError === undefined ? {} : { envError }),
      message,
    };
  });
}

const warned = new Set<TurnZeroCause>();

/** The default: a process warning (`TURN_ZERO_WARNING_CODES`), once per cause per process. */
export function warnTurnZeroEnds(report: TurnZeroReport): void {
  if (warned.has(report.cause)) return;
  warned.add(report.cause);
  process.emitWarning(report.message, {
    type: 'PilotRLWarning',
    code: TURN_ZERO_WARNING_CODES[report.cause],
  });
}
