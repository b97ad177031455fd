// A dependency-free progress line on stderr: done/total, ETA from the mean time per unit, live
// figures (success rate) and notes in words (an update that changed nothing). On a terminal it
// redraws in place; otherwise it prints one line per update.

export interface ProgressStream {
  write(text: string): boolean;
  isTTY?: boolean;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return h > 0
    ? `${h}h${String(m).padStart(2, '0')}m`
    : m > 0
      ? `${m}m${String(rest).padStart(2, '0')}s`
      : `${rest}s`;
}

export class ProgressBar {
  private done = 0;
  private readonly started: number;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly stream: ProgressStream = process.stderr,
    private readonly now: () => number = Date.now,
    initial = 0,
  ) {
    this.started = now();
    this.done = initial;
    this.initial = initial;
  }

  private readonly initial: number;

  /** Marks `done` units finished and redraws with the given live figures, then the notes. */
  update(done: number, figures: Record<string, string> = {}, notes: readonly string[] = []): string {
    this.done = done;
    const width = 24;
    const fraction = this.total > 0 ? Math.min(1, this.done / this.total) : 1;
    const filled = Math.round(fraction * width);
    const elapsed = (this.now() - this.started) / 1000;
    const fresh = this.done - this.initial;
    const eta = fresh > 0 ? (elapsed / fresh) * (this.total - this.done) : Number.NaN;
    const extras = Object.entries(figures).map(([k, v]) => `${k} ${v}`);
    const line = [
      `${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total}`,
      `elapsed ${formatDuration(elapsed)}`,
      `ETA ${formatDuration(eta)}`,
      ...extras,
      ...notes,
    ].join('  ');
    this.stream.write(this.stream.isTTY ? `\r\x1b[2K${line}` : `${line}\n`);
    return line;
  }

  /** Ends the in-place line on a terminal. */
  finish(): void {
    if (this.stream.isTTY) this.stream.write('\n');
  }
}
