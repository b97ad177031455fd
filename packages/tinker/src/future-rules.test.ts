import { describe, expect, it } from 'vitest';
import { createPollState, nextPollAction, type PollAnswer } from './future-rules';

const limits = {
  maxConnectionRetries: 2,
  maxResubmissions: 1,
  maxServerErrorRetries: 2,
  maxBackoffMs: 30_000,
};
const json = (value: unknown): PollAnswer => ({
  kind: 'result',
  contentType: 'json',
  body: new TextEncoder().encode(JSON.stringify(value)),
});
const status = (code: number, body = '{"detail":"x"}'): PollAnswer => ({
  kind: 'status',
  status: code,
  body,
});
const run = (answers: PollAnswer[]) => {
  const state = createPollState();
  return answers.map((answer) => nextPollAction(answer, state, limits));
};

describe("retrieve_future answers, by the official SDK's rules", () => {
  it('returns a result, protobuf or JSON', () => {
    const proto: PollAnswer = { kind: 'result', contentType: 'protobuf', body: new Uint8Array([8, 1]) };
    expect(run([proto])[0]).toEqual({ kind: 'done', contentType: 'protobuf', body: new Uint8Array([8, 1]) });
    expect(run([json({ metrics: {} })])[0]!.kind).toBe('done');
  });

  it('polls again at once on 408 (long poll over) and try_again, and asks for the payload after metadata only', () => {
    const state = createPollState();
    expect(nextPollAction(status(408), state, limits)).toEqual({ kind: 'poll', delayMs: 0 });
    expect(nextPollAction(json({ type: 'try_again', queue_state: 'active' }), state, limits)).toEqual({
      kind: 'poll',
      delayMs: 0,
    });
    expect(state.allowMetadataOnly).toBe(true);
    expect(
      nextPollAction(json({ status: 'complete_metadata', response_payload_size: 9 }), state, limits),
    ).toEqual({
      kind: 'poll',
      delayMs: 0,
    });
    expect(state.allowMetadataOnly).toBe(false);
  });

  it('backs off exponentially on 429 and lost connections, and gives up on a server that stays away', () => {
    expect(run([status(429), status(429), status(429)]).map((a) => a.kind === 'poll' && a.delayMs)).toEqual([
      1000, 2000, 4000,
    ]);
    const gone: PollAnswer = { kind: 'unreachable', detail: 'ECONNREFUSED' };
    expect(run([gone, gone, gone])).toEqual([
      { kind: 'poll', delayMs: 1000 },
      { kind: 'poll', delayMs: 2000 },
      { kind: 'unreachable', detail: 'ECONNREFUSED' },
    ]);
  });

  it('retries 5xx at once a bounded number of times in a row', () => {
    expect(run([status(500), status(502), status(500)]).map((a) => a.kind)).toEqual([
      'poll',
      'poll',
      'rejected',
    ]);
    expect(run([status(500), status(500), status(408), status(500)]).map((a) => a.kind)).toEqual([
      'poll',
      'poll',
      'poll',
      'poll',
    ]);
  });

  it('polls a bare 400 three times more before it counts as the failure of the request', () => {
    expect(run([status(400), status(400), status(400), status(400, '{"detail":"bad datum"}')])).toEqual([
      { kind: 'poll', delayMs: 0 },
      { kind: 'poll', delayMs: 0 },
      { kind: 'poll', delayMs: 0 },
      { kind: 'failed', detail: '{"detail":"bad datum"}' },
    ]);
  });

  it('resubmits after 410 (the promise expired), a bounded number of times', () => {
    expect(run([status(410), status(410)]).map((a) => a.kind)).toEqual(['resubmit', 'rejected']);
  });

  it('fails at once on a JSON error and on other 4xx', () => {
    expect(run([json({ error: 'out of memory', category: 'server' })])[0]).toEqual({
      kind: 'failed',
      detail: 'out of memory',
    });
    expect(run([status(404, '{"detail":"Future not found"}')])[0]).toEqual({
      kind: 'rejected',
      status: 404,
      body: '{"detail":"Future not found"}',
    });
  });
});
