import type { TurnZeroReport } from '@pilotrl/agent';
import { describe, expect, it } from 'vitest';
import { tinyCorridorConfig } from '../tiny-corridor.testing';
import { describeTurnZeroEnds, turnZeroNotice } from './turn-zero-notice';

const overflow: TurnZeroReport = {
  cause: 'context_overflow',
  envId: 'maze',
  episodes: 16,
  total: 16,
  overflow: {
    promptTokens: 317,
    budgetTokens: 236,
    contextTokens: 256,
    openingChars: 3087,
    counter: 'policy.countTokens',
  },
  message: 'the library message',
};

describe('describeTurnZeroEnds', () => {
  it("tells a context overflow in numbers and in the config's own keys", () => {
    const config = tinyCorridorConfig(1, { agent: { prompt: 'env' } });
    expect(describeTurnZeroEnds(overflow, 'joint rollout', config)).toBe(
      `warning: joint rollout: 16 of 16 episodes on "maze" ended at turn 0 with endReason 'context_overflow': ` +
        'the smallest first prompt takes 317 tokens (the opening observation alone 3087 characters), but ' +
        'policy.contextLength 256 less 20 kept for the answer leaves 236, so these episodes generate nothing and ' +
        'train nothing; fix: raise policy.contextLength, set agent.prompt: view (one short prompt rebuilt every ' +
        'turn) or compact, lower agent.maxActionTokens or agent.maxPlanTokens, or choose env.options that open ' +
        'with a shorter first observation',
    );
  });

  it('offers only the prompts the config does not use yet', () => {
    const viewing = tinyCorridorConfig(1, { agent: { prompt: 'view' } });
    expect(describeTurnZeroEnds(overflow, 'eval', viewing)).not.toContain('agent.prompt');
    const compact = tinyCorridorConfig(1, { agent: { prompt: 'compact' } });
    expect(describeTurnZeroEnds(overflow, 'eval', compact)).toContain(
      'set agent.prompt: view (one short prompt rebuilt every turn), lower',
    );
  });

  it('names the fix of an env without commands, and the error of an env that failed', () => {
    const base = { envId: 'maze', episodes: 3, total: 4, message: '' };
    expect(describeTurnZeroEnds({ ...base, cause: 'no_actions' }, 'eval', undefined)).toContain(
      'set agent.actionSpace: free-text',
    );
    expect(describeTurnZeroEnds({ ...base, cause: 'env_error', envError: 'boom' }, 'eval', undefined)).toBe(
      'warning: eval: 3 of 4 episodes on "maze" ended at turn 0 with endReason \'env_error\': boom',
    );
  });
});

describe('turnZeroNotice', () => {
  it('logs each env and cause once, however many rollouts report it', () => {
    const logged: string[] = [];
    const notice = turnZeroNotice(
      (line) => logged.push(line),
      'joint rollout',
      () => undefined,
    );
    notice.onTurnZeroEnds(overflow);
    notice.onTurnZeroEnds(overflow);
    notice.onTurnZeroEnds({ ...overflow, envId: 'wordle' });
    notice.onTurnZeroEnds({ ...overflow, cause: 'env_error', overflow: undefined, envError: 'boom' });
    expect(logged.map((line) => line.slice(0, 60))).toEqual([
      'warning: joint rollout: 16 of 16 episodes on "maze" ended at',
      'warning: joint rollout: 16 of 16 episodes on "wordle" ended ',
      'warning: joint rollout: 16 of 16 episodes on "maze" ended at',
    ]);
    expect(logged[2]).toContain("'env_error': boom");
  });
});
