import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { NoMatchError, OperationError, UsageError } from '../../cli/errors.js';
import { parseSeconds } from '../shared/options.js';
import { isLabFile, labTarget } from './shared.js';

/** Options of `lab wait`. */
export interface LabWaitOptions {
  lab: string;
  /** `A:B` pairs: A pings B (a node or an IPv4 address); `all`: every pair of the lab file's linux hosts. */
  pings: string[];
  /** Also wait until every FRR router's running configuration holds what its frr.conf asks. */
  configured: boolean;
  timeoutSeconds: number;
}

export const DEFAULT_WAIT_TIMEOUT_S = 60;

/** `emuctl lab wait FILE|NAME [--configured] [--ping A:B [--ping C:D …]] [--timeout S]`, or `lab wait FILE --ping all`. */
export function labWaitCommand(f: Factory, run = runLabWait): Command {
  return new Command('wait')
    .description('wait until every FRR router holds its frr.conf (--configured) and each A pings B; exit 1 naming the routers and pairs that never did')
    .argument('<lab>', 'lab file, or the name of its project')
    .option('--configured', "wait until every docker node with an /etc/frr/frr.conf runs it (hostname, interface addresses, router sections)")
    .option('--ping <A:B>', 'A pings B: a node and a node (its ip:) or an IPv4 address; repeat for more pairs; all: every pair of the generated linux hosts', (v: string, prev: string[] = []) => [...prev, v])
    .option('-t, --timeout <seconds>', `give up after this long (default ${DEFAULT_WAIT_TIMEOUT_S})`, parseSeconds)
    .action(async (lab: string, flags: { ping?: string[]; configured?: boolean; timeout?: number }, cmd: Command) => {
      if (!flags.ping?.length && !flags.configured) throw new UsageError('give --configured or at least one --ping A:B');
      return run({ lab, pings: flags.ping ?? [], configured: flags.configured === true, timeoutSeconds: flags.timeout ?? DEFAULT_WAIT_TIMEOUT_S }, await f.context(cmd));
    });
}

/** Pings every pair until it answers or the time is up; exit 0 when all did, else 1 naming those that did not. */
export async function runLabWait(opts: LabWaitOptions, ctx: Context): Promise<void> {
  const { parsePingPair, pingFailure, waitForPings } = await import('../../lab/wait.js');
  const all = opts.pings.includes('all');
  if (all && !isLabFile(opts.lab)) throw new UsageError('--ping all needs the lab file (its hosts and their addresses come from it), not a lab name');
  const pairs = opts.pings.filter((p) => p !== 'all').map(parsePingPair);
  if (!pairs.length && !all && !opts.configured) throw new UsageError('give --configured or at least one --ping A:B');
  const { name, spec } = await labTarget(opts.lab, ctx.env);
  const generated = new Map<string, string>();
  if (all) {
    const { allHostPairs } = await import('../../lab/ping-all.js');
    const every = allHostPairs(spec!);
    for (const [host, address] of every.addresses) generated.set(host, address);
    pairs.push(...every.pairs.filter((p) => !pairs.some((q) => q.from === p.from && q.to === p.to)));
  }
  const api = await ctx.api();
  const { readLabState, vpcsSettings } = await import('../../lab/state.js');
  const state = await readLabState(api, name);
  if (!state.project) throw new NoMatchError(`no lab ${name} on ${api.url} (no project of that name)`);
  const addressOf = (node: string) => {
    const fromFile = generated.get(node) ?? spec?.nodes.find((n) => n.name === node)?.ip;
    const onServer = state.nodes.find((n) => n.name === node);
    const ip = fromFile ?? (onServer?.node_type === 'vpcs' ? vpcsSettings(state, onServer).ip : undefined);
    return ip?.split('/')[0];
  };
  const timeoutMs = opts.timeoutSeconds * 1000;
  const deadline = Date.now() + timeoutMs;
  if (opts.configured) {
    const { waitConfigured } = await import('../../lab/router-config.js');
    const { configured, failures } = await ctx.out.spin('Waiting for the routers to hold their configuration', () => waitConfigured(api, state.nodes, deadline));
    if (failures.length) throw new OperationError(`${failures.length} of ${configured + failures.length} routers not configured within ${opts.timeoutSeconds} s: ${failures.slice(0, 10).join('; ')}${failures.length > 10 ? '; …' : ''}`);
    ctx.out.success(`${configured} router${configured === 1 ? '' : 's'} hold their frr.conf`);
    if (!pairs.length) {
      ctx.out.result({ configured });
      return;
    }
  }
  const what = all ? `${pairs.length} pairs of hosts` : pairs.map((p) => `${p.from} → ${p.to}`).join(', ');
  const outcomes = await ctx.out.spin(`Waiting for ${what}`,
    () => waitForPings(state.nodes, api, pairs, addressOf, Math.max(1000, deadline - Date.now())));
  ctx.out.result(outcomes);
  for (const o of outcomes.filter((x) => x.ok)) ctx.out.success(`${o.from} pings ${o.to} (${o.address}) after ${(o.elapsed_ms / 1000).toFixed(1)} s`);
  if (outcomes.some((o) => !o.ok)) throw pingFailure(outcomes, timeoutMs);
}
