// Counters behind `GET /metrics`: sessions by protocol, steps and a recent step rate, errors by kind.
// Everything is a number in a fixed-size structure, so metrics never grow with traffic.

/** Seconds of history the step rate is averaged over. */
const RATE_WINDOW_S = 10;

export class ServerMetrics {
  private readonly started: number;
  private stepsTotal = 0;
  private readonly errorsByKind = new Map<string, number>();
  /** Steps per whole second of the clock, for the last RATE_WINDOW_S seconds (a ring). */
  private readonly buckets = new Array<number>(RATE_WINDOW_S).fill(0);
  private bucketSecond = 0;
  created = 0;
  closed = 0;
  reaped = 0;
  refused = 0;

  constructor(private readonly now: () => number) {
    this.started = now();
    this.bucketSecond = Math.floor(this.started / 1000);
  }

  step(): void {
    this.stepsTotal += 1;
    this.advance();
    this.buckets[this.bucketSecond % RATE_WINDOW_S]! += 1;
  }

  /** Counts an error answered to a client; `kind` is short and fixed (e.g. `invalid_json`). */
  error(kind: string): void {
    this.errorsByKind.set(kind, (this.errorsByKind.get(kind) ?? 0) + 1);
  }

  /** Empties the buckets of the seconds that passed since the last step. */
  private advance(): void {
    const second = Math.floor(this.now() / 1000);
    const passed = Math.min(second - this.bucketSecond, RATE_WINDOW_S);
    for (let k = 1; k <= passed; k++) this.buckets[(this.bucketSecond + k) % RATE_WINDOW_S] = 0;
    if (second > this.bucketSecond) this.bucketSecond = second;
  }

  snapshot(sessions: { open: number; max: number; byProtocol: Record<string, number> }) {
    this.advance();
    const elapsed = Math.max((this.now() - this.started) / 1000, 1e-3);
    const window = Math.min(RATE_WINDOW_S, elapsed);
    const recent = this.buckets.reduce((sum, n) => sum + n, 0);
    let errorsTotal = 0;
    for (const n of this.errorsByKind.values()) errorsTotal += n;
    return {
      uptime_s: Math.round(elapsed * 1000) / 1000,
      sessions: {
        open: sessions.open,
        max: sessions.max,
        by_protocol: sessions.byProtocol,
        created: this.created,
        closed: this.closed,
        reaped: this.reaped,
        refused: this.refused,
      },
      steps: { total: this.stepsTotal, per_second: Math.round((recent / window) * 100) / 100 },
      errors: { total: errorsTotal, by_kind: Object.fromEntries(this.errorsByKind) },
    };
  }
}
