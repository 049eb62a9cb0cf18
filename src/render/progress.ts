import type { Output } from './output.js';

/** `1.2 MB`-style size for humans (plain bytes below 1 kB; decimal units). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  // 999.5 rounds up to "1000": go to the next unit instead.
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const REDRAW_MS = 100;

/**
 * A one-line progress display on stderr (`label: 1.2 MB, 42 frames`), redrawn at most every
 * 100 ms, only when the output is interactive (a terminal, no --json, no --quiet).
 */
export class ByteProgress {
  private last = 0;
  private shown = false;

  constructor(private readonly out: Output, private readonly label: string) {}

  /** Shows the bytes (and frames) so far. */
  update(bytes: number, frames?: number, force = false): void {
    if (!this.out.interactive) return;
    const now = Date.now();
    if (!force && now - this.last < REDRAW_MS) return;
    this.last = now;
    this.shown = true;
    const count = frames === undefined ? '' : `, ${frames} frame${frames === 1 ? '' : 's'}`;
    this.out.redrawErrLine(`${this.label}: ${formatBytes(bytes)}${count}`);
  }

  /** Clears the line. */
  done(): void {
    if (this.shown) this.out.redrawErrLine('');
    this.shown = false;
  }
}
