import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { AsyncLock } from '../../../util/async-lock.js';
import { runHostTool } from '../host-access.js';
import { HostChangeJournal, type HostChange } from '../host-changes.js';
import { MGMT_BRIDGE_PREFIX, MGMT_VETH_PREFIX } from '../host-interface-policy.js';
import { thisProcessAsOwner } from '../process/process-registry.js';
import { ipForwardingStillNeeded } from '../ip-forwarding.js';
import { isolate } from './isolation.js';
import type { ManagementAccess, ManagementNetwork } from './types.js';

/** A management journal's file name: `mgmt-host.<8 hex of the project>.<pid>-<start time>.json`. */
export const MGMT_JOURNAL = /^mgmt-host\.[0-9a-f]{8}\.\d+-\d+\.json$/;

/** The metric of a node's default route through the management gateway (a lab's own default route, metric 0, wins). */
export const MGMT_DEFAULT_ROUTE_METRIC = 1000;

/** 8 hex digits of an id: the part of a name that says whose it is. */
export function shortId(id: string): string {
  return id.replace(/-/g, '').slice(0, 8).toLowerCase();
}

/** The bridge of a project's management network (12 characters). */
export function mgmtBridgeName(projectId: string): string {
  return `${MGMT_BRIDGE_PREFIX}${shortId(projectId)}`;
}

/** The host end of a node's management veth, and its other end's name until it is in the container. */
export function mgmtVethNames(nodeId: string): { host: string; peer: string } {
  return { host: `${MGMT_VETH_PREFIX}${shortId(nodeId)}`, peer: `${MGMT_VETH_PREFIX}${shortId(nodeId)}p` };
}

function nsenter(pid: number, args: string[]): Promise<unknown> {
  return runHostTool('nsenter', [`--net=/proc/${pid}/ns/net`, ...args]);
}

/**
 * One project's management network on this host: a bridge holding the gateway addresses, kept
 * apart from every other host interface (isolation.ts: iptables and ip6tables rules of its own chain
 * drop what would be forwarded in or out; frames between its own ports pass; a lab that asks for
 * `nat` gets an IPv4 route out, masqueraded), and one veth per node. It is outside
 * the dataplane: no management frame crosses a data link. Every change is journalled before it is
 * made (the NAT node's journal), so a daemon restarted after a kill -9 removes what this one made.
 */
export class ManagementBridge implements Omit<ManagementAccess, 'attachVm'> {
  readonly bridge: string;
  private readonly lock = new AsyncLock();
  private journal?: HostChangeJournal;

  constructor(readonly projectId: string, readonly network: ManagementNetwork, private readonly runDir: string, private readonly log: Logger) {
    this.bridge = mgmtBridgeName(projectId);
  }

  get interfaceName(): string {
    return this.network.interface;
  }

  get routeOut(): boolean {
    return this.network.nat === true;
  }

  /** Makes the bridge, its addresses and its isolation; ConflictError with one line when it cannot (undone first). */
  up(): Promise<void> {
    return this.lock.run(async () => {
      if (this.journal) return;
      if (existsSync(`/sys/class/net/${this.bridge}`)) throw new ConflictError(`cannot make the management bridge ${this.bridge}: an interface of that name exists and is not this daemon's`);
      await mkdir(this.runDir, { recursive: true, mode: 0o700 });
      const owner = thisProcessAsOwner();
      const journal = new HostChangeJournal(join(this.runDir, `mgmt-host.${shortId(this.projectId)}.${owner.pid}-${owner.startTime}.json`), owner, ipForwardingStillNeeded);
      this.journal = journal;
      try {
        await this.makeBridge(journal);
        await isolate(journal, { bridge: this.bridge, short: shortId(this.projectId), network: this.network });
      } catch (err) {
        await this.downUnlocked().catch((e: Error) => this.log.error(`management network: undoing a failed start: ${e.message}`));
        throw err instanceof ConflictError ? err : new ConflictError(`cannot set up the management network ${this.network.ipv4.subnet}: ${(err as Error).message.split('\n')[0]}`);
      }
      this.log.info(`management network of project ${this.projectId}: bridge ${this.bridge} ${this.network.ipv4.gateway}${this.network.ipv6 ? ` ${this.network.ipv6.gateway}` : ''} up`);
    });
  }

  /** Removes everything the network added to the host. */
  down(): Promise<void> {
    return this.lock.run(() => this.downUnlocked());
  }

  async attachContainer(nodeId: string, pid: number, ipv4: string, ipv6: string | null): Promise<void> {
    const { host, peer } = mgmtVethNames(nodeId);
    const name = this.network.interface;
    await this.lock.run(async () => {
      const journal = this.journal;
      if (!journal) throw new ConflictError(`the management network of project ${this.projectId} is not up`);
      // A host end left by a container that is gone goes first.
      if (existsSync(`/sys/class/net/${host}`)) await runHostTool('ip', ['link', 'delete', 'dev', host]);
      await journal.record({ kind: 'link', name: host });
      await runHostTool('ip', ['link', 'add', 'name', host, 'type', 'veth', 'peer', 'name', peer]);
    });
    try {
      await runHostTool('ip', ['link', 'set', 'dev', host, 'master', this.bridge, 'up']);
      await runHostTool('ip', ['link', 'set', 'dev', peer, 'netns', String(pid), 'name', name]);
      await nsenter(pid, ['ip', 'addr', 'add', ipv4, 'dev', name]);
      if (ipv6) {
        // Docker turns IPv6 off for new interfaces of a container without a Docker IPv6 network; /proc/sys/net is the entered namespace's.
        await nsenter(pid, ['sh', '-c', 'echo 0 > "/proc/sys/net/ipv6/conf/$1/disable_ipv6"', 'sh', name]);
        await nsenter(pid, ['ip', '-6', 'addr', 'add', ipv6, 'dev', name, 'nodad']);
      }
      // Up last: the container's init waits for the interface to be up, so its command finds it addressed.
      await nsenter(pid, ['ip', 'link', 'set', 'dev', name, 'up']);
      // A lab that asked for a route out: a default route through the gateway, at a metric the lab's own default routes win over (the init waits for it too).
      if (this.routeOut) await nsenter(pid, ['ip', 'route', 'add', 'default', 'via', this.network.ipv4.gateway, 'dev', name, 'metric', String(MGMT_DEFAULT_ROUTE_METRIC)]);
    } catch (err) {
      await runHostTool('ip', ['link', 'delete', 'dev', host]).catch(() => undefined);
      const e = err as { stderr?: string; message: string };
      throw new ConflictError(`cannot give the container its management interface ${name}: ${(e.stderr || e.message).trim().split('\n')[0]}`);
    }
  }

  /** Records `change` in the network's journal, then makes it, under the network's lock; ConflictError when the network is down. */
  journalled(change: HostChange, make: () => Promise<void>): Promise<void> {
    return this.lock.run(async () => {
      if (!this.journal) throw new ConflictError(`the management network of project ${this.projectId} is not up`);
      await this.journal.record(change);
      await make();
    });
  }

  async detach(nodeId: string): Promise<void> {
    const { host } = mgmtVethNames(nodeId);
    if (existsSync(`/sys/class/net/${host}`)) await runHostTool('ip', ['link', 'delete', 'dev', host]).catch(() => undefined);
  }

  private async makeBridge(journal: HostChangeJournal): Promise<void> {
    const { ipv4, ipv6 } = this.network;
    await journal.record({ kind: 'link', name: this.bridge });
    await runHostTool('ip', ['link', 'add', 'name', this.bridge, 'type', 'bridge']);
    await runHostTool('ip', ['addr', 'add', `${ipv4.gateway}/${ipv4.subnet.split('/')[1]}`, 'dev', this.bridge]);
    if (ipv6) await runHostTool('ip', ['-6', 'addr', 'add', `${ipv6.gateway}/${ipv6.subnet.split('/')[1]}`, 'dev', this.bridge, 'nodad']);
    await runHostTool('ip', ['link', 'set', 'dev', this.bridge, 'up']);
  }

  private async downUnlocked(): Promise<void> {
    const journal = this.journal;
    this.journal = undefined;
    if (journal) await journal.undoAll();
  }
}
