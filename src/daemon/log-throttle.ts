/** Lets a log line about one key through once per window, and counts the ones it held back. */
export class LogThrottle {
  private readonly last = new Map<string, { at: number; held: number }>();

  constructor(private readonly windowMs: number, private readonly now: () => number = Date.now) {}

  /** Whether to log now for `key`; when yes, also how many lines were held back since the last one. */
  pass(key: string): { log: boolean; held: number } {
    const now = this.now();
    const entry = this.last.get(key);
    if (entry && now - entry.at < this.windowMs) {
      entry.held++;
      return { log: false, held: entry.held };
    }
    const held = entry?.held ?? 0;
    this.last.set(key, { at: now, held: 0 });
    if (this.last.size > 10_000) this.forgetOld(now);
    return { log: true, held };
  }

  private forgetOld(now: number): void {
    for (const [key, entry] of this.last) if (now - entry.at >= this.windowMs) this.last.delete(key);
  }
}
