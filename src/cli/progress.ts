/**
 * Progress of long CLI work on stderr: a one-line bar redrawn in place when stderr is a
 * terminal; otherwise (a CI log, a job runner's log file) a plain line every 10 %.
 */
export class ProgressBar {
  private last = 0;
  private shown = false;
  /** Plain lines: the last tenth reported, and the fraction of the last update. */
  private tenth = 0;
  private previous = 0;

  /**
   * @param write - writes to stderr
   * @param terminal - stderr is a terminal (the CLI passes `process.stderr.isTTY`): draw a bar
   * @param interval - least milliseconds between redraws of the bar
   */
  constructor(
    private readonly write: (text: string) => void,
    readonly terminal: boolean,
    private readonly interval = 100,
  ) {}

  /**
   * Reports `fraction` in [0, 1] done: redraws the bar (throttled), or writes a line when
   * another tenth is done. A fraction below the last one starts a new count (a second pass).
   */
  update(label: string, fraction: number, detail = ''): void {
    const f = Math.min(1, Math.max(0, fraction));
    if (!this.terminal) {
      if (f < this.previous) this.tenth = 0;
      this.previous = f;
      const tenth = Math.floor(f * 10 + 1e-9);
      if (tenth <= this.tenth) return;
      this.tenth = tenth;
      this.write(`ecuas: ${label} ${tenth * 10}%${detail ? ` (${detail})` : ''}\n`);
      return;
    }
    const now = Date.now();
    if (this.shown && now - this.last < this.interval && fraction < 1) return;
    this.last = now;
    this.shown = true;
    const cells = 24;
    const full = Math.round(f * cells);
    const bar = '█'.repeat(full) + '░'.repeat(cells - full);
    this.write(`\r${label} ${bar} ${String(Math.floor(f * 100)).padStart(3)}%${detail ? ' ' + detail : ''}\x1b[K`);
  }

  /** Clears the bar's line; the next plain line starts a new count. */
  clear(): void {
    this.tenth = 0;
    this.previous = 0;
    if (!this.shown) return;
    this.shown = false;
    this.write('\r\x1b[K');
  }
}

/** "12.3 MB" */
export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} kB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
