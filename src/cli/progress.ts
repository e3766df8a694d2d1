/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
export class ProgressBar {
  private last = 0;
  private shown = false;

  /**
   * @param write - writes to stderr
   * @param enabled - draw at all (the CLI passes `process.stderr.isTTY`)
   * @param interval - least milliseconds between redraws
   */
  constructor(
    private readonly write: (text: string) => void,
    readonly enabled: boolean,
    private readonly interval = 100,
  ) {}

  /** Redraws (throttled) with `fraction` in [0, 1] done. */
  update(label: string, fraction: number, detail = ''): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (this.shown && now - this.last < this.interval && fraction < 1) return;
    this.last = now;
    this.shown = true;
    const f = Math.min(1, Math.max(0, fraction));
    const cells = 24;
    const full = Math.round(f * cells);
    const bar = '█'.repeat(full) + '░'.repeat(cells - full);
    this.write(`\r${label} ${bar} ${String(Math.floor(f * 100)).padStart(3)}%${detail ? ' ' + detail : ''}\x1b[K`);
  }

  /** Clears the line. */
  clear(): void {
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
