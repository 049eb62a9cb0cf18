import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { launchRecorded, logTail, type Launched } from '../../compute/process/launch.js';
import { thisProcessAsOwner, type ProcessRegistry } from '../../compute/process/process-registry.js';
import { ConflictError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { AsyncLock } from '../../../util/async-lock.js';
import { DEFAULT_GRACE_MS, terminateProcessTree } from '../../../util/process-termination.js';
import { describeChange, HostChangeJournal, iptables, undoDeadJournals } from '../../compute/host-changes.js';
import { hostTool, missingHostAccess, runHostTool } from '../../compute/host-access.js';
import { NAT_BRIDGE_PREFIX } from '../../compute/host-interface-policy.js';
import { enableIpForwarding, ipForwardingStillNeeded } from '../../compute/ip-forwarding.js';
import { natAddresses, overlaps, parseSubnet, routeSubnet, subnetText, type Subnet } from './subnet.js';

/** The host tools a NAT node runs, with the Debian package of each. */
export const NAT_TOOLS = { ip: 'iproute2', iptables: 'iptables', dnsmasq: 'dnsmasq-base' };

export interface NatHostOptions {
  subnet: string;
  runDir: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
  registry?: ProcessRegistry;
}

/** The host's IPv4 routes of the main table: destination and device. */
async function hostRoutes(): Promise<{ destination: string; dev: string }[]> {
  const { stdout } = await runHostTool('ip', ['-4', '-o', 'route', 'show']);
  return stdout.split('\n').filter(Boolean).map((line) => {
    const words = line.trim().split(/\s+/);
    const dev = words.indexOf('dev');
    return { destination: words[0], dev: dev >= 0 ? words[dev + 1] : '' };
  });
}

/**
 * The host side every NAT node of this daemon shares: emuctl's own bridge holding the subnet's
 * gateway address, dnsmasq serving DHCP (and DNS) on that bridge only, IPv4 forwarding, and a
 * MASQUERADE rule in iptables chains of this daemon's own. It comes up with the first started NAT
 * node and goes with the last; each change is journalled before it is made.
 */
export class NatHost {
  readonly bridge = `${NAT_BRIDGE_PREFIX}${process.pid}`;
  private readonly natChain = `EMUCTL-NAT-${process.pid}`;
  private readonly forwardChain = `EMUCTL-FWD-${process.pid}`;
  private readonly subnet: Subnet;
  private readonly lock = new AsyncLock();
  private users = 0;
  private journal?: HostChangeJournal;
  private dnsmasq?: Launched;
  private stopping = false;

  constructor(private readonly o: NatHostOptions) {
    this.subnet = parseSubnet(o.subnet, 'nat_subnet');
  }

  get gateway(): string {
    return natAddresses(this.subnet).gateway;
  }

  /** One line on what this host lacks for NAT nodes, or undefined. */
  missing(): string | undefined {
    return missingHostAccess('the nat node', this.o.env, NAT_TOOLS);
  }

  /** Takes the host side for one NAT node, bringing it up for the first; ConflictError with one line when it cannot. */
  acquire(): Promise<void> {
    return this.lock.run(async () => {
      if (this.users === 0) await this.bringUp();
      this.users++;
    });
  }

  /** Gives back one NAT node's share; the last one takes everything down. */
  release(): Promise<void> {
    return this.lock.run(async () => {
      if (this.users === 0) return;
      if (--this.users === 0) await this.tearDown();
    });
  }

  /** Takes everything down whoever holds it (the daemon stops). */
  close(): Promise<void> {
    return this.lock.run(async () => {
      this.users = 0;
      await this.tearDown();
    });
  }

  /** Removes what dead daemons' NAT nodes left on the host (their journals in the run dir). */
  async cleanupLeftovers(): Promise<void> {
    const { undone, failures } = await undoDeadJournals(this.o.runDir, ipForwardingStillNeeded);
    if (undone.length) this.o.log.info(`removed what a previous run's NAT nodes left on the host: ${undone.map(describeChange).join(', ')}`);
    for (const f of failures) this.o.log.error(`could not remove what a previous run's NAT node left: ${f}`);
  }

  private async bringUp(): Promise<void> {
    const missing = this.missing();
    if (missing) throw new ConflictError(missing);
    const routes = await hostRoutes();
    const clash = routes.find((r) => r.destination !== 'default' && routeSubnet(r.destination) && overlaps(routeSubnet(r.destination)!, this.subnet));
    if (clash) throw new ConflictError(`the NAT subnet ${subnetText(this.subnet)} overlaps the host route ${clash.destination} (dev ${clash.dev}): set nat_subnet (EMUCTL_NAT_SUBNET) to a free one`);
    const uplink = routes.find((r) => r.destination === 'default')?.dev;

    await mkdir(this.o.runDir, { recursive: true, mode: 0o700 });
    const owner = thisProcessAsOwner();
    const journal = new HostChangeJournal(join(this.o.runDir, HostChangeJournal.fileName(owner)), owner, ipForwardingStillNeeded);
    this.journal = journal;
    try {
      await this.makeBridge(journal);
      await this.makeFirewall(journal, uplink);
      await enableIpForwarding(journal);
      await this.startDnsmasq();
    } catch (err) {
      await this.tearDown().catch((e: Error) => this.o.log.error(`NAT: undoing a failed start: ${e.message}`));
      throw err instanceof ConflictError ? err : new ConflictError(`cannot set up the NAT node's host side: ${(err as Error).message.split('\n')[0]}`);
    }
    this.o.log.info(`NAT: bridge ${this.bridge} ${this.gateway}/${this.subnet.prefix} up, masquerading out of ${uplink ?? 'any interface (no default route)'}`);
  }

  private async makeBridge(journal: HostChangeJournal): Promise<void> {
    // Recorded means removed later: what exists already is not this daemon's to record.
    if (existsSync(`/sys/class/net/${this.bridge}`)) throw new ConflictError(`cannot make the NAT bridge ${this.bridge}: an interface of that name exists and is not this daemon's`);
    await journal.record({ kind: 'link', name: this.bridge });
    await runHostTool('ip', ['link', 'add', 'name', this.bridge, 'type', 'bridge']);
    await runHostTool('ip', ['addr', 'add', `${this.gateway}/${this.subnet.prefix}`, 'dev', this.bridge]);
    await runHostTool('ip', ['link', 'set', 'dev', this.bridge, 'up']);
  }

  private async makeFirewall(journal: HostChangeJournal, uplink: string | undefined): Promise<void> {
    const subnet = subnetText(this.subnet);
    const comment = ['-m', 'comment', '--comment', `emuctl daemon pid ${process.pid} NAT`];
    for (const [table, chain] of [['nat', this.natChain], ['filter', this.forwardChain]]) {
      if (await iptables(table, '-n', '-L', chain).then(() => true, () => false)) throw new ConflictError(`cannot make the iptables chain ${table}/${chain}: it exists and is not this daemon's`);
    }
    await journal.record({ kind: 'chain', table: 'nat', name: this.natChain });
    await iptables('nat', '-N', this.natChain);
    await iptables('nat', '-A', this.natChain, '-s', subnet, '!', '-d', subnet, ...(uplink ? ['-o', uplink] : []), '-j', 'MASQUERADE');
    const postrouting = ['-s', subnet, ...comment, '-j', this.natChain];
    await journal.record({ kind: 'rule', table: 'nat', chain: 'POSTROUTING', spec: postrouting });
    await iptables('nat', '-I', 'POSTROUTING', '1', ...postrouting);
    // Accepted whatever the FORWARD policy and rules are (a DROP policy, ufw, docker).
    await journal.record({ kind: 'chain', table: 'filter', name: this.forwardChain });
    await iptables('filter', '-N', this.forwardChain);
    await iptables('filter', '-A', this.forwardChain, '-i', this.bridge, '-s', subnet, '-j', 'ACCEPT');
    await iptables('filter', '-A', this.forwardChain, '-o', this.bridge, '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', 'ACCEPT');
    const forward = [...comment, '-j', this.forwardChain];
    await journal.record({ kind: 'rule', table: 'filter', chain: 'FORWARD', spec: forward });
    await iptables('filter', '-I', 'FORWARD', '1', ...forward);
  }

  private async startDnsmasq(): Promise<void> {
    const { firstLease, lastLease, netmask } = natAddresses(this.subnet);
    const dir = join(this.o.runDir, `nat-${process.pid}`);
    const logPath = join(dir, 'dnsmasq.log');
    this.stopping = false;
    const launched = await launchRecorded({
      binary: hostTool('dnsmasq', this.o.env)!,
      args: [
        '--keep-in-foreground', '--conf-file=/dev/null', '--no-hosts', '--log-facility=-',
        `--interface=${this.bridge}`, '--bind-interfaces', '--except-interface=lo',
        `--dhcp-range=${firstLease},${lastLease},${netmask},1h`, '--dhcp-authoritative', '--no-ping',
        `--dhcp-leasefile=${join(dir, 'leases')}`, `--pid-file=${join(dir, 'dnsmasq.pid')}`,
      ],
      cwd: dir,
      logPath,
      registry: this.o.registry,
      label: `dnsmasq for NAT bridge ${this.bridge}`,
      env: this.o.env,
      onExit: (code, signal) => {
        if (!this.stopping) this.o.log.error(`NAT: dnsmasq on ${this.bridge} exited (${signal ?? `code ${code}`}): NAT nodes hand out no more leases until they restart`);
        this.dnsmasq = undefined;
      },
    });
    this.dnsmasq = launched;
    await this.waitForDhcp(launched.child, logPath, launched.logOffset);
  }

  /** Resolves once dnsmasq says its DHCP range is served; ConflictError with its last words if it ends first. */
  private async waitForDhcp(child: ChildProcess, logPath: string, offset: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const said = await logTail(logPath, offset);
      if (/DHCP, IP range/.test(said)) return;
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        throw new ConflictError(`dnsmasq did not start on ${this.bridge}: ${said.split('\n').slice(-2).join(' ') || 'no output'}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private async tearDown(): Promise<void> {
    const launched = this.dnsmasq;
    if (launched) {
      this.stopping = true;
      await terminateProcessTree(launched.child.exitCode === null ? launched.identity : undefined, [], DEFAULT_GRACE_MS);
      await this.o.registry?.remove(launched.identity.pid).catch(() => undefined);
      this.dnsmasq = undefined;
    }
    const journal = this.journal;
    this.journal = undefined;
    if (journal) await journal.undoAll();
  }
}
