import type { ApiClient } from '../client/api.js';
import { execInNode } from '../client/node-exec.js';
import type { Node } from '../client/nodes.js';
import { loadFactor } from '../client/pacing.js';
import { eachLimited } from '../util/each-limited.js';

// A router that loses its configuration load (watchfrr kills `vtysh -b` after its restart timeout)
// runs its daemons with nothing configured: it looks started. The check compares what the router's
// /etc/frr/frr.conf asks with its running configuration, both read in the container in one exec.

/** How a docker node's FRR configuration stands: null when it is no FRR router (no /etc/frr/frr.conf). */
export interface RouterConfig {
  ok: boolean;
  /** Lines of frr.conf the running configuration lacks, as `interface eth0: ip address …` or `hostname R1`. */
  missing: string[];
  /** Why the router could not be asked (not started, no answer in time): not configured as far as anyone knows. */
  error?: string;
}

const MARK = '===emuctl-running-config===';
/** Exit status of the check when the container has no frr.conf. */
const NO_CONF = 3;
const LINKS_MARK = '===emuctl-interfaces===';
const SCRIPT = `test -r /etc/frr/frr.conf || exit ${NO_CONF}; cat /etc/frr/frr.conf; echo ${MARK}; vtysh -c 'show running-config' 2>&1; echo ${LINKS_MARK}; ls /sys/class/net`;

/**
 * The lines of an FRR configuration that say whether it was loaded: the hostname, each interface's
 * addresses (IPv4 and IPv6), and each `router …` section, each keyed by the block it sits in.
 */
export function configFacts(text: string): string[] {
  const facts: string[] = [];
  let block: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (!line || line.startsWith('!') || line === 'exit' || line === 'end') {
      if (line.startsWith('!') || line === 'exit') block = undefined;
      continue;
    }
    if (!/^\s/.test(line)) {
      block = /^(interface|router) /.test(line) ? line : undefined;
      if (/^(hostname|router) /.test(line)) facts.push(line);
      continue;
    }
    const inner = line.trim();
    if (block?.startsWith('interface ') && /^ipv?6? ?address /.test(inner)) facts.push(`${block}: ${inner}`);
  }
  return facts;
}

/**
 * Compares the output of SCRIPT (frr.conf, the mark, the running configuration, and after the
 * second mark the container's interfaces). FRR keeps the configuration of an interface that does
 * not exist (a VLAN sub-interface the kernel could not make), so each interface frr.conf configures
 * must also be there.
 */
export function compareConfig(output: string): RouterConfig {
  const at = output.indexOf(MARK);
  const linksAt = output.indexOf(LINKS_MARK);
  const conf = at < 0 ? output : output.slice(0, at);
  const wanted = configFacts(conf);
  const running = new Set(at < 0 ? [] : configFacts(output.slice(at + MARK.length, linksAt < 0 ? undefined : linksAt)));
  const missing = wanted.filter((f) => !running.has(f));
  if (linksAt >= 0) {
    const present = new Set(output.slice(linksAt + LINKS_MARK.length).split(/\s+/).filter(Boolean));
    const configured = [...conf.matchAll(/^interface (\S+)/gm)].map((m) => m[1]!);
    missing.unshift(...configured.filter((n) => !present.has(n)).map((n) => `interface ${n} (no such interface in the container)`));
  }
  return { ok: missing.length === 0, missing };
}

/** Checks one started docker node; null when it is no FRR router. A failed exec counts as not configured. */
export async function checkRouterConfig(api: ApiClient, node: Node, timeoutMs = Math.min(300_000, 30_000 * loadFactor())): Promise<RouterConfig | null> {
  if (node.node_type !== 'docker') return null;
  if (node.status !== 'started') return { ok: false, missing: [], error: `node is ${node.status}` };
  try {
    const answer = await execInNode(api, node, ['sh', '-c', SCRIPT], timeoutMs);
    if (answer.exit_code === NO_CONF) return null;
    return compareConfig(answer.output);
  } catch (err) {
    return { ok: false, missing: [], error: `no answer: ${(err as Error).message}` };
  }
}

/** Checks the nodes, `concurrency` at a time: node name → its state (FRR routers only). */
export async function checkRouterConfigs(api: ApiClient, nodes: readonly Node[], concurrency = 8): Promise<Map<string, RouterConfig>> {
  const docker = nodes.filter((n) => n.node_type === 'docker');
  const results = await eachLimited(docker, concurrency, (n) => checkRouterConfig(api, n));
  const out = new Map<string, RouterConfig>();
  results.forEach((r, i) => {
    if (r.status === 'fulfilled' && r.value) out.set(docker[i]!.name, r.value);
  });
  return out;
}

/** One phrase for a router that is not configured: `R7: lacks interface eth0: ip address …, hostname R7`. */
export function describeMissing(name: string, config: RouterConfig): string {
  if (config.error) return `${name}: ${config.error}`;
  const shown = config.missing.slice(0, 3).join(', ');
  return `${name}: lacks ${shown}${config.missing.length > 3 ? ` and ${config.missing.length - 3} more` : ''}`;
}

/**
 * Polls the FRR routers among `nodes` until each holds its configuration or the deadline passes;
 * `failures` names those that never did (with what they lack).
 */
export async function waitConfigured(api: ApiClient, nodes: readonly Node[], deadline: number): Promise<{ configured: number; failures: string[] }> {
  let pending = nodes.filter((n) => n.node_type === 'docker');
  let configured = 0;
  let last = new Map<string, RouterConfig>();
  for (;;) {
    last = await checkRouterConfigs(api, pending);
    const routers = pending.filter((n) => last.has(n.name));
    configured += routers.filter((n) => last.get(n.name)!.ok).length;
    pending = routers.filter((n) => !last.get(n.name)!.ok);
    if (!pending.length || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(0, deadline - Date.now()))));
  }
  return { configured, failures: pending.map((n) => describeMissing(n.name, last.get(n.name)!)) };
}
