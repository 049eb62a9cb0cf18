import type { Output } from './output.js';
import { formatBytes } from './progress.js';

/** Below this many bytes a transfer is quick: no spinner. */
const BIG_BYTES = 1_000_000;
const REDRAW_MS = 100;

/**
 * Runs a transfer (a project archive up or down) and, on a terminal, shows an ora spinner with
 * the bytes moved so far once the transfer turns out to be big. `total` is known for uploads.
 */
export async function withTransferSpinner<T>(out: Output, label: string, total: number | undefined, task: (progress: (bytes: number) => void) => Promise<T>): Promise<T> {
  let spinner: { text: string; stop(): void } | undefined;
  let starting: Promise<unknown> | undefined;
  let last = 0;
  const progress = (bytes: number) => {
    if (!out.interactive || (bytes < BIG_BYTES && (total ?? 0) < BIG_BYTES)) return;
    starting ??= out.spinner(label).then((s) => (spinner = s));
    if (!spinner || Date.now() - last < REDRAW_MS) return;
    last = Date.now();
    const pct = total ? ` (${Math.min(100, Math.floor((100 * bytes) / total))}%)` : '';
    spinner.text = `${label}: ${formatBytes(bytes)}${total ? ` of ${formatBytes(total)}` : ''}${pct}`;
  };
  try {
    return await task(progress);
  } finally {
    await starting;
    spinner?.stop();
  }
}
