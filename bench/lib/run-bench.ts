import { deadline } from '../forward/latency.js';

/**
 * Runs a benchmark's `main` within `limitMs`: a failure or the time limit prints one line and
 * sets exit code 1; `cleanup` (stop the daemons and tools it started) runs whatever happens,
 * Ctrl-C included.
 */
export async function runBench(what: string, limitMs: number, main: () => Promise<void>, cleanup: () => Promise<void>): Promise<void> {
  const limit = deadline(limitMs, what);
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    await Promise.race([main(), limit.promise]);
  } catch (err) {
    console.error(`${what} failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  } finally {
    limit.cancel();
    await cleanup();
  }
}
