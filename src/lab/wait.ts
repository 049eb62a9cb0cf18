import type { ApiClient } from '../client/api.js';
import { OperationError, UsageError } from '../client/errors.js';
import { openCommandConsole, type CommandConsole } from '../client/node-exec.js';
import type { Node } from '../client/nodes.js';

/** `A:B`: A pings B, a node (its address from the lab) or an IPv4 address. */
export interface PingPair {
  from: string;
  to: string;
}

/** How one pair ended. */
export interface PingOutcome {
  from: string;
  to: string;
  address: string;
  ok: boolean;
  attempts: number;
  /** Time until the first reply, or until giving up (ms). */
  elapsed_ms: number;
  /** Why the last ping failed (VPCS's words), when it did. */
  reason?: string;
}

/** Parses `A:B` (a node and a node or address). */
export function parsePingPair(text: string): PingPair {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) throw new UsageError(`"${text}" is not a ping pair: expected FROM:TO, e.g. PC1:PC2 or PC1:10.0.0.2`);
  return { from: text.slice(0, colon), to: text.slice(colon + 1) };
}

const IPV4 = /^(\d{1,3}\.){3}\d{1,3}$/;
const RETRY_PAUSE_MS = 300;

/**
 * Pings each pair's target from its source node (a docker node's container, else its console) until a reply comes back or the
 * deadline passes; pairs run in parallel, one console per source node (its commands queue).
 * `addressOf` gives a node's IPv4 address (from the lab file or its startup script).
 */
export async function waitForPings(nodes: readonly Node[], api: ApiClient, pairs: readonly PingPair[], addressOf: (name: string) => string | undefined, timeoutMs: number): Promise<PingOutcome[]> {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const targets = pairs.map((pair) => {
    if (!byName.has(pair.from)) throw new UsageError(`no node ${pair.from} in the lab (in --ping ${pair.from}:${pair.to})`);
    const address = IPV4.test(pair.to) ? pair.to : addressOf(pair.to);
    if (!address) throw new UsageError(`${pair.to} is neither an IPv4 address nor a node of the lab with an ip: (in --ping ${pair.from}:${pair.to})`);
    return { ...pair, address };
  });
  const deadline = Date.now() + timeoutMs;
  const consoles = new Map<string, Promise<CommandConsole>>();
  const consoleOf = (name: string) => {
    if (!consoles.has(name)) consoles.set(name, openCommandConsole(byName.get(name)!, api, timeoutMs));
    return consoles.get(name)!;
  };
  try {
    return await Promise.all(targets.map(async (t): Promise<PingOutcome> => {
      const started = Date.now();
      let attempts = 0;
      let reason = 'no reply';
      const console = await consoleOf(t.from);
      while (Date.now() < deadline) {
        attempts++;
        // One ping that fails to run (an exec that did not end in time on a loaded machine) is one failed attempt, not the end of the wait.
        const result = await console.ping(t.address, Math.max(5_000, deadline - Date.now())).catch((err: Error) => ({ ok: false, reason: err.message }));
        if (result.ok) return { ...t, ok: true, attempts, elapsed_ms: Date.now() - started };
        reason = result.reason ?? 'no reply';
        if (Date.now() + RETRY_PAUSE_MS < deadline) await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS));
      }
      return { ...t, ok: false, attempts, elapsed_ms: Date.now() - started, reason };
    }));
  } finally {
    for (const pending of consoles.values()) void pending.then((c) => c.close(), () => undefined);
  }
}

/** The one line naming every pair that failed. */
export function pingFailure(outcomes: readonly PingOutcome[], timeoutMs: number): OperationError {
  const failed = outcomes.filter((o) => !o.ok);
  return new OperationError(`no ping within ${timeoutMs / 1000} s: ${failed.map((o) => `${o.from} → ${o.to} (${o.address}): ${o.reason}`).join('; ')}`);
}
