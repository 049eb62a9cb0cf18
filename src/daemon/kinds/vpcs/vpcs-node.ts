import { join } from 'node:path';
import { failpoint } from '../../failpoints.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { NodeContext } from '../../compute/node-context.js';
import type { TelnetConsole } from '../../compute/node-types.js';
import type { VPCS_CREATE_SCHEMA, VPCS_UPDATE_SCHEMA } from './schemas.js';
import type { FromSchema } from '../../schemas/validation.js';
import { nodeOwner } from '../../compute/ownership.js';
import { ANY_ADDRESS } from '../../compute/port-probe.js';
import { vpcsMac } from './mac-address.js';
import type { ProcessRegistry } from '../../compute/process/process-registry.js';
import { checkStartupScript, refusedScriptLine } from './script-commands.js';
import { applyStartupSettings, readStartupConfig, writeStartupConfig } from './startup-config.js';
import { resolveVpcsBinary } from './vpcs-binary.js';
import { consoleBindAddress, type VpcsConfinement } from './confinement.js';
import { VpcsProcess } from './vpcs-process.js';
import { DataplaneNode, nodeIdOr } from '../../compute/nodes/dataplane-node.js';

/** What every VPCS of a compute shares: the PID registry, the executable and the daemon's environment to find it in. */
export interface VpcsShared {
  registry?: ProcessRegistry;
  binary?: string;
  env: NodeJS.ProcessEnv;
  /** Confinement shim of every VPCS (its console binds the compute's address), or 'unconfined' (vpcs_unconfined). */
  confinement?: Pick<VpcsConfinement, 'shim'> | 'unconfined';
}

/** A VPCS create body, as VPCS_CREATE_SCHEMA accepts it (`mac_address`, an emuctl extension, is the MAC the controller chose, unique across the project's computes). */
export type VpcsCreate = FromSchema<typeof VPCS_CREATE_SCHEMA>;
type VpcsUpdate = FromSchema<typeof VPCS_UPDATE_SCHEMA>;

/** VPCS's UDP side is relayed by a 2-port dataplane wire: port 0 faces VPCS, port 1 carries the link. */
const VPCS_SIDE = 0;
const LINK_SIDE = 1;

/**
 * Measured on Debian's vpcs 0.5b2 (strace, `-i 1`): besides its `-s` port it binds the port 9 above
 * on 0.0.0.0 (127.0.0.1 once confined), in a thread of its worker. Both are held for the node so that
 * no other tunnel gets them.
 */
export const VPCS_EXTRA_UDP_OFFSETS = [9];

/**
 * A Virtual PC: the real `vpcs` binary supervised in the foreground, its
 * Ethernet relayed through the dataplane so captures and filters work on it.
 */
export class VpcsNode extends DataplaneNode {
  readonly nodeType = 'vpcs';
  private process?: VpcsProcess;
  /** The command line of the last start ('' before the first), as GNS3 reports it. */
  private commandLine = '';
  /** The address the console websocket bridge connects to (set at start). */
  private consoleAddress = '127.0.0.1';

  private constructor(id: string, name: string, ctx: NodeContext, private readonly binary: string, private readonly shared: VpcsShared,
    public consolePort: number, private readonly macByte: number, private readonly vpcsUdp: number, private readonly wireUdp: number) {
    super(id, name, ctx, 'stopped');
  }

  /**
   * Creates the node (not started): console port, MAC byte, VPCS's UDP ports, the wire's UDP port, the
   * dataplane wire, the startup script. All are held by the node's owner: when a step fails, the
   * compute releases what the earlier ones took (LocalCompute.createNode). A script sent by a client
   * is checked here (400); a restored node's script at start (409), like its files from an archive.
   */
  static async create(body: VpcsCreate, ctx: NodeContext, shared: VpcsShared, { restoring = false } = {}): Promise<VpcsNode> {
    if (!restoring && body.startup_script) checkStartupScript(body.startup_script);
    const binary = await resolveVpcsBinary(shared.binary, shared.env);
    const id = nodeIdOr(body.node_id);
    const owner = nodeOwner(ctx.projectId, id);
    const { udpPorts, consolePorts, macBytes } = ctx.resources;
    const consolePort = await consolePorts.allocate(owner, body.console ?? undefined);
    failpoint('vpcs.create.after-console');
    const macByte = macBytes.allocate(owner, body.mac_address ? parseInt(body.mac_address.slice(-2), 16) : undefined);
    failpoint('vpcs.create.after-mac');
    const vpcsUdp = await udpPorts.allocate(owner, { companions: VPCS_EXTRA_UDP_OFFSETS, host: ANY_ADDRESS });
    failpoint('vpcs.create.after-vpcs-udp');
    const wireUdp = await udpPorts.allocate(owner, { host: '127.0.0.1' });
    failpoint('vpcs.create.after-wire-udp');
    const node = new VpcsNode(id, body.name, ctx, binary, shared, consolePort, macByte, vpcsUdp, wireUdp);
    await ctx.dataplane.createNode(id, 'hub', [VPCS_SIDE, LINK_SIDE].map((port) => ({ port, type: 'access' as const, vlan: 1 })));
    failpoint('vpcs.create.after-wire');
    const script = body.startup_script ?? (await readStartupConfig(ctx.projectDir, node.dir)) ?? '';
    await writeStartupConfig(ctx.projectDir, node.dir, scriptFor(script, body.name));
    failpoint('vpcs.create.after-directory');
    return node;
  }

  get dir(): string {
    return join(this.ctx.projectDir, 'project-files', 'vpcs', this.id);
  }

  /** Changes the console port, name or startup script; if the script cannot be written (full disk), nothing changes. */
  update(body: VpcsUpdate): Promise<void> {
    return this.lock.run(async () => {
      if (body.startup_script) checkStartupScript(body.startup_script);
      const oldConsole = this.consolePort;
      if (body.console !== undefined && body.console !== null && body.console !== this.consolePort) await this.moveConsole(body.console);
      const name = body.name ?? this.name;
      if (body.name !== undefined || body.startup_script !== undefined) {
        try {
          const script = body.startup_script ?? (await readStartupConfig(this.ctx.projectDir, this.dir)) ?? '';
          await writeStartupConfig(this.ctx.projectDir, this.dir, scriptFor(script, name));
        } catch (err) {
          if (this.consolePort !== oldConsole) this.consolePort = await this.moveConsolePort(this.consolePort, oldConsole).catch(() => this.consolePort);
          throw err;
        }
      }
      this.name = name;
    });
  }

  /** Moves a stopped VPCS's console to another TCP port (GNS3 allows it); a running one keeps its port (409). */
  private async moveConsole(port: number): Promise<void> {
    if (this.process?.isRunning) throw new ConflictError(`The console port of VPCS ${this.name} cannot change while it runs: stop it first`);
    this.consolePort = await this.moveConsolePort(this.consolePort, port);
  }

  protected dataplanePort(adapter: number, port: number): number {
    if (adapter !== 0 || port !== 0) throw new NotFoundError(`Port ${adapter}/${port} doesn't exist on VPCS ${this.name} (only 0/0)`);
    return LINK_SIDE;
  }

  protected portList() {
    return [{ adapter: 0, port: 0, name: 'Ethernet0' }];
  }

  /** Starts VPCS and plugs its UDP port into the wire. */
  override start(): Promise<void> {
    return this.lock.run(async () => {
      if (this.process?.isRunning) return;
      // VPCS runs its script's `!` lines on the host: a script written through the file routes or brought by an archive is checked here.
      const refused = refusedScriptLine((await readStartupConfig(this.ctx.projectDir, this.dir)) ?? '');
      if (refused !== undefined) throw new ConflictError(`startup script of VPCS ${this.name}: '${refused}' is not allowed in a VPCS startup script; change the script before starting the node`);
      await this.ctx.dataplane.addNio(this.id, VPCS_SIDE, { bindHost: '127.0.0.1', lport: this.wireUdp, rhost: '127.0.0.1', rport: this.vpcsUdp });
      // Where the console websocket reaches the console: the address the daemon's relay of a confined VPCS listens on (any for a wildcard), or an unconfined VPCS's own wildcard.
      const listening = this.shared.confinement === 'unconfined' ? '0.0.0.0' : await consoleBindAddress(this.ctx.bindHost);
      this.consoleAddress = listening === '0.0.0.0' ? '127.0.0.1' : listening;
      const proc = new VpcsProcess({
        nodeDir: this.dir,
        consolePort: this.consolePort,
        localUdpPort: this.vpcsUdp,
        remoteUdpPort: this.wireUdp,
        remoteHost: '127.0.0.1',
        macByte: this.macByte,
        binary: this.binary,
        registry: this.shared.registry,
        env: this.shared.env,
        confinement: this.shared.confinement === 'unconfined' ? 'unconfined' : { ...this.shared.confinement, consoleHost: this.ctx.bindHost },
        label: `vpcs ${this.name} (${this.id})`,
        log: this.ctx.log,
      });
      proc.once('exit', (exit) => {
        this.ctx.log.warn(`VPCS ${this.name} stopped unexpectedly: ${exit.reason}`);
        this.ctx.events.log('error', `VPCS ${this.name} has stopped: ${exit.reason}${exit.logTail ? `\n${exit.logTail}` : ''}`, this.ctx.projectId);
        void this.lock.run(() => this.unplug());
      });
      try {
        await proc.start();
      } catch (err) {
        await this.unplug();
        throw err;
      }
      this.commandLine = [this.binary, ...proc.arguments()].join(' ');
      this.process = proc;
      this.status = 'started';
    });
  }

  override stop(): Promise<void> {
    return this.lock.run(async () => {
      await this.process?.stop();
      await this.unplug();
    });
  }

  /** VPCS cannot pause: GNS3 accepts the call and does nothing, and so does emuctl. */
  override async suspend(): Promise<void> {}

  /** Stops the process and removes the wire; the ports and the MAC byte go back with the node's owner. */
  override async destroy(): Promise<void> {
    await this.stop();
    await super.destroy();
  }

  /** A confined VPCS's console is the daemon's relay on the compute's IPv4 address; an unconfined one listens on every IPv4 address. */
  telnetConsole(): TelnetConsole {
    return { host: this.consoleAddress, port: this.consolePort };
  }

  toJSON(): Record<string, unknown> {
    return {
      ...this.identityJSON(),
      console: this.consolePort,
      console_type: 'telnet',
      node_directory: this.dir,
      command_line: this.commandLine,
      mac_address: vpcsMac(this.macByte),
    };
  }

  private async unplug(): Promise<void> {
    this.process = undefined;
    this.status = 'stopped';
    await this.ctx.dataplane.removeNio(this.id, VPCS_SIDE).catch(() => {});
  }
}

/** VPCS 0.5b2 keeps a pcname of at most 6 bytes and silently ignores a longer one (measured). */
const PCNAME_MAX_BYTES = 6;

/**
 * The startup script for a VPCS named `name`: `%h` stands for the name (as in GNS3's base script)
 * and `set pcname` gets it as VPCS takes it, one word of at most 6 bytes, so any GNS3 node name works.
 */
function scriptFor(script: string, name: string): string {
  let pcname = '';
  for (const char of name.replace(/\s+/g, '') || 'VPCS') {
    if (Buffer.byteLength(pcname + char) > PCNAME_MAX_BYTES) break;
    pcname += char;
  }
  return applyStartupSettings(script.replaceAll('%h', pcname), { name: pcname });
}
