import type { ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { AsyncLock } from '../../../util/async-lock.js';
import { addressText, addressValue, cidrContains, parseCidr, type Cidr } from '../../../util/ip-cidr.js';
import { DEFAULT_GRACE_MS, terminateProcessTree } from '../../../util/process-termination.js';
import { hostTool, missingHostAccess } from '../host-access.js';
import { launchRecorded, logTail, type Launched } from '../process/launch.js';
import type { ProcessRegistry } from '../process/process-registry.js';

/** The host tool the DHCP server of a management network runs, with its Debian package. */
export const DHCP_TOOLS = { dnsmasq: 'dnsmasq-base' };

/** A MAC address as dnsmasq's `--dhcp-host` takes it (lower case, colons). */
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
/** A bridge name emuctl makes (letters and digits only, 15 characters at most). */
const IFNAME = /^[a-z0-9]{1,15}$/;

export interface DhcpServerOptions {
  /** The management bridge dnsmasq serves, and only it. */
  bridge: string;
  /** The network's IPv4 subnet (`a.b.c.0/N`). */
  subnet: string;
  /** The default router handed out (the gateway, when the network has a route out); none when absent. */
  router?: string;
  /** Where its lease file, pid file and log go (made owner-only). */
  dir: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
  registry?: ProcessRegistry;
}

/**
 * The DHCP server of one management network: a dnsmasq bound to the network's bridge only, with
 * DNS off (`--port=0`), that hands out static leases only, one fixed address per MAC, and no
 * router or DNS server option, so a guest gets an address but no route out.
 *
 * It runs while at least one lease is wanted. The leases are `--dhcp-host` arguments, so a change
 * restarts it: dnsmasq reads a `--dhcp-hostsfile` (and re-reads it on SIGHUP) only after it has
 * dropped root for `nobody`, who cannot enter emuctl's owner-only run directory; the arguments keep
 * it unprivileged. A restart costs a few milliseconds, and a client whose request falls in it retries.
 */
export class ManagementDhcp {
  private readonly lock = new AsyncLock();
  private readonly subnet: Cidr;
  private readonly router?: string;
  /** The wanted leases: node id → MAC and address. */
  private readonly leases = new Map<string, { mac: string; address: string }>();
  private running?: { launched: Launched; args: string[] };
  private stopping = false;

  constructor(private readonly o: DhcpServerOptions) {
    if (!IFNAME.test(o.bridge)) throw new ConflictError(`the management bridge name '${o.bridge}' is not one dnsmasq may be given`);
    const subnet = parseCidr(o.subnet, 4);
    if (typeof subnet === 'string') throw new ConflictError(`management subnet ${o.subnet}: ${subnet}`);
    this.subnet = subnet;
    if (o.router !== undefined) {
      const router = addressValue(o.router, 4);
      if (router === undefined || !cidrContains(subnet, router)) throw new ConflictError(`the router '${o.router}' is not an address of ${o.subnet}`);
      this.router = addressText(router, 4);
    }
  }

  /** One line on what the host lacks to serve DHCP, or undefined. */
  missing(): string | undefined {
    return missingHostAccess('a QEMU node on a management network (its DHCP server)', this.o.env, DHCP_TOOLS);
  }

  /** Gives `mac` the fixed lease of `address` (a bare IPv4 address of the subnet, checked by the caller) for node `nodeId`; the server runs when this returns. */
  set(nodeId: string, mac: string, address: string): Promise<void> {
    if (!MAC.test(mac)) return Promise.reject(new ConflictError(`'${mac}' is not a MAC address dnsmasq may be given`));
    return this.lock.run(async () => {
      this.leases.set(nodeId, { mac, address });
      try {
        await this.apply();
      } catch (err) {
        this.leases.delete(nodeId);
        throw err;
      }
    });
  }

  /** Drops the node's lease; the server stops with the last one. */
  remove(nodeId: string): Promise<void> {
    return this.lock.run(async () => {
      if (!this.leases.delete(nodeId)) return;
      await this.apply();
    });
  }

  /** Stops the server, whoever wants a lease (the network goes down). */
  stop(): Promise<void> {
    return this.lock.run(async () => {
      this.leases.clear();
      await this.halt();
    });
  }

  /** The dnsmasq of the wanted leases: started, restarted with the new ones, or stopped when none is left. */
  private async apply(): Promise<void> {
    const args = this.arguments();
    if (this.running && this.running.args.join('\0') === args.join('\0') && this.running.launched.child.exitCode === null) return;
    await this.halt();
    if (this.leases.size === 0) return;
    const missing = this.missing();
    if (missing) throw new ConflictError(missing);
    await this.launch(args);
  }

  private arguments(): string[] {
    const prefix = this.subnet.prefix;
    const netmask = addressText(((1n << 32n) - 1n) ^ ((1n << BigInt(32 - prefix)) - 1n), 4);
    const hosts = [...this.leases.values()].sort((a, b) => a.mac.localeCompare(b.mac)).map((l) => `--dhcp-host=${l.mac},${l.address}`);
    return [
      '--keep-in-foreground', '--conf-file=/dev/null', '--no-hosts', '--no-resolv', '--log-facility=-', '--port=0',
      `--interface=${this.o.bridge}`, '--bind-interfaces', '--except-interface=lo',
      `--dhcp-range=${addressText(this.subnet.network, 4)},static,${netmask},12h`, '--dhcp-authoritative', '--no-ping',
      // Empty options are sent as "none": no default route (unless the network routes out), no DNS server.
      this.router ? `--dhcp-option=3,${this.router}` : '--dhcp-option=3', '--dhcp-option=6',
      `--dhcp-leasefile=${join(this.o.dir, 'leases')}`, `--pid-file=${join(this.o.dir, 'dnsmasq.pid')}`,
      ...hosts,
    ];
  }

  private async launch(args: string[]): Promise<void> {
    await mkdir(this.o.dir, { recursive: true, mode: 0o700 });
    const logPath = join(this.o.dir, 'dnsmasq.log');
    this.stopping = false;
    const launched = await launchRecorded({
      binary: hostTool('dnsmasq', this.o.env)!,
      args,
      cwd: this.o.dir,
      logPath,
      registry: this.o.registry,
      label: `dnsmasq for management bridge ${this.o.bridge}`,
      env: this.o.env,
      onExit: (code, signal) => {
        if (!this.stopping) this.o.log.error(`management network: dnsmasq on ${this.o.bridge} exited (${signal ?? `code ${code}`}): QEMU nodes get no lease until one of them restarts`);
        if (this.running?.launched === launched) this.running = undefined;
      },
    });
    this.running = { launched, args };
    try {
      await this.waitForDhcp(launched.child, logPath, launched.logOffset);
    } catch (err) {
      await this.halt();
      throw err;
    }
  }

  /** Resolves once dnsmasq says it serves the subnet; ConflictError with its last words if it ends first. */
  private async waitForDhcp(child: ChildProcess, logPath: string, offset: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const said = await logTail(logPath, offset);
      if (/DHCP, static leases only on/.test(said)) return;
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        throw new ConflictError(`dnsmasq did not start on ${this.o.bridge}: ${said.split('\n').slice(-2).join(' ') || 'no output'}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private async halt(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.stopping = true;
    this.running = undefined;
    const { child, identity } = running.launched;
    await terminateProcessTree(child.exitCode === null && child.signalCode === null ? identity : undefined, [], DEFAULT_GRACE_MS);
    await this.o.registry?.remove(identity.pid).catch(() => undefined);
  }
}
