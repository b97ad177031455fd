// `alfworld-replay` reports every failure, expected or not, as one line on stderr and a non-zero
// exit code; the replay itself is replaced here by one that throws what is asked of it.
import { InvalidArgumentError, ParseError } from '@pilotrl/core';
import { describe, expect, it, vi } from 'vitest';
import { runReplayCommand } from './replay-command';

const replay = vi.hoisted(() => ({ throws: undefined as unknown, transcript: 'won: true\n' }));
vi.mock('./replay', () => ({
  replayFiles: () => {
    if (replay.throws !== undefined) throw replay.throws;
    return replay.transcript;
  },
}));

const run = (argv: readonly string[], throws?: unknown) => {
  replay.throws = throws;
  let stdout = '';
  let stderr = '';
  const code = runReplayCommand(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
};

describe('alfworld-replay', () => {
  it('prints the transcript and exits 0', () => {
    expect(run(['game.tw-pddl', 'actions.txt'])).toEqual({ code: 0, stdout: 'won: true\n', stderr: '' });
  });

  it('reports an unexpected error as one line without a stack trace, and exits 1', () => {
    const result = run(['game.tw-pddl', 'actions.txt'], new RangeError('Maximum call stack size exceeded'));
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'alfworld-replay: Maximum call stack size exceeded\n',
    });
  });

  it('reports the project errors, a multi-line message and a thrown non-error on one line', () => {
    const parse = new ParseError('game.tw-pddl (pddl_problem)', 3, 'lists nest 5003 deep; the limit is 64');
    expect(run(['g', 'a'], parse).stderr).toBe(
      'alfworld-replay: game.tw-pddl (pddl_problem):3: lists nest 5003 deep; the limit is 64\n',
    );
    const invalid = new InvalidArgumentError('Invalid options:\n  dialect: expected legacy or current');
    expect(run(['g', 'a'], invalid).stderr).toBe(
      'alfworld-replay: Invalid options: dialect: expected legacy or current\n',
    );
    expect(run(['g', 'a'], 'out of cheese')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'alfworld-replay: out of cheese\n',
    });
  });

  it('prints the usage and exits 2 on wrong arguments', () => {
    expect(run(['only-one'])).toMatchObject({ code: 2, stdout: '' });
    expect(run(['only-one']).stderr).toMatch(/^usage: alfworld-replay /);
    expect(run(['g', 'a', '--dialect', 'future']).stderr).toMatch(/^--dialect must be legacy or current\n/);
  });
});
