// What the trainer says when most episodes of a stage's rollout or of an evaluation ended at turn 0
// (the first prompt did not fit the policy's context, the env admitted no command, the env failed at
// once): the agent's report, told in the config's own keys, once per place, env and cause.
import type { RolloutHooks, TurnZeroReport } from '@pilotrl/agent';
import type { EnvCurriculum } from '../config/curriculum-config';

/** The report as a status line that names the config keys that fix it. */
export function describeTurnZeroEnds(
  report: TurnZeroReport,
  where: string,
  config: Pick<EnvCurriculum, 'agent'> | undefined,
): string {
  const head = `warning: ${where}: ${report.episodes} of ${report.total} episodes on "${report.envId}" ended at turn 0 with endReason '${report.cause}'`;
  const { overflow } = report;
  if (overflow !== undefined) {
    const prompt = config?.agent.prompt;
    const fixes = [
      'raise policy.contextLength',
      ...(prompt === 'view'
        ? []
        : [
            `set agent.prompt: view (one short prompt rebuilt every turn)${prompt === 'compact' ? '' : ' or compact'}`,
          ]),
      'lower agent.maxActionTokens or agent.maxPlanTokens',
      'or choose env.options that open with a shorter first observation',
    ];
    return (
      `${head}: the smallest first prompt takes ${overflow.promptTokens} tokens ` +
      `(the opening observation alone ${overflow.openingChars} characters), but policy.contextLength ${overflow.contextTokens} ` +
      `less ${overflow.contextTokens - overflow.budgetTokens} kept for the answer leaves ${overflow.budgetTokens}, ` +
      `so these episodes generate nothing and train nothing; fix: ${fixes.join(', ')}`
    );
  }
  if (report.cause === 'no_actions') {
    return `${head}: the env admitted no command to choose from; set agent.actionSpace: free-text, or use an env that lists its commands`;
  }
  return `${head}: ${report.envError ?? 'the env failed'}`;
}

/**
 * Rollout hooks that log each (env, cause) once, however many rollouts report it: `where` says
 * which rollouts (a stage's, the evaluations), `configOf` finds the curriculum an env plays.
 */
export function turnZeroNotice(
  log: (line: string) => void,
  where: string,
  configOf: (envId: string) => EnvCurriculum | undefined,
): Required<Pick<RolloutHooks, 'onTurnZeroEnds'>> {
  const said = new Set<string>();
  return {
    onTurnZeroEnds(report) {
      const key = `${report.envId}\n${report.cause}`;
      if (said.has(key)) return;
      said.add(key);
      log(describeTurnZeroEnds(report, where, configOf(report.envId)));
    },
  };
}
