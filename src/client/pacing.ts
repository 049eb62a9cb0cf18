import { availableParallelism, loadavg } from 'node:os';

// Waits and fan-out for operations on every node of a project (lab up/down, node start|stop --all).
// A docker start or stop takes well under a second on an idle machine and tens of seconds with a
// hundred containers booting on two cores (load 20+), so a fixed 10 s per request fails exactly when
// the lab is large. These read the load of the machine the CLI runs on: the local daemon's machine.

/** The 1-minute load per core, at least 1: how much slower than idle the machine answers. */
export function loadFactor(load = loadavg()[0], cores = availableParallelism()): number {
  return Math.max(1, load / Math.max(1, cores));
}

/** How long one node's start or stop request may take: 60 s on an idle machine, times the load factor. */
export function perNodeTimeoutMs(factor = loadFactor()): number {
  return Math.round(60_000 * factor);
}

/** How long one request that works through `nodes` nodes (deleting a project) may take: 60 s plus 2 s a node, times the load factor. */
export function bulkTimeoutMs(nodes: number, factor = loadFactor()): number {
  return Math.round((60_000 + 2_000 * nodes) * factor);
}

/**
 * Start requests in flight at once by default: 4 per core, at least 2, at most 32 (`lab up --concurrency N`
 * sets it). Measured with 100 FRR routers on 2 cores (bench/README.md): 8 at once converged at 82 s, 4 at
 * 86 s and 16 at 94 s. Fewer starts when the machine is loaded was slower, so the load does not lower it.
 */
export function startConcurrency(cores = availableParallelism()): number {
  return Math.min(32, Math.max(2, 4 * cores));
}

/**
 * Stop requests in flight at once: 4 per core, at most 16, whatever the load. A stop costs a fraction of
 * a start (an FRR router: 0.2 s and 0.3 CPU-seconds), and the load average a lab leaves behind as it
 * boots stays high for minutes after, so pacing stops by it only made `lab down` slow.
 */
export function stopConcurrency(cores = availableParallelism()): number {
  return Math.min(16, 4 * cores);
}
