import { join } from 'node:path';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { NodeContext } from '../node-context.js';
import type { ConsolePortAllocator } from '../vpcs/console-ports.js';
import type { ProcessRegistry } from '../vpcs/process-registry.js';
import { applyStartupSettings, readStartupConfig, writeStartupConfig } from '../vpcs/startup-config.js';
import { resolveVpcsBinary } from '../vpcs/vpcs-binary.js';
import { VpcsProcess } from '../vpcs/vpcs-process.js';
import { DataplaneNode, nodeIdOr } from './dataplane-node.js';

/** What every VPCS of a compute shares: console ports, MAC bytes, the PID registry. */
export interface VpcsShared {
  consolePorts: ConsolePortAllocator;
  macBytes: MacByteAllocator;
  registry?: ProcessRegistry;
  binary?: string;
}

export interface VpcsCreate {
  name: string;
  node_id?: string;
  console?: number | null;
  console_type?: 'telnet' | 'none';
  startup_script?: string | null;
  /** emuctl extension: the MAC the controller chose (00:50:79:66:68:XX), unique across the project's computes. */
  mac_address?: string;
}

/** VPCS's UDP side is relayed by a 2-port dataplane wire: port 0 faces VPCS, port 1 carries the link. */
const VPCS_SIDE = 0;
const LINK_SIDE = 1;

/**
 * A Virtual PC: the real `vpcs` binary supervised in the foreground, its
 * Ethernet relayed through the dataplane so captures and filters work on it.
 */
export class VpcsNode extends DataplaneNode {
  readonly nodeType = 'vpcs';
  private process?: VpcsProcess;
  /** The command line of the last start ('' before the first), as GNS3 reports it. */
  private commandLine = '';

  private constructor(id: string, name: string, ctx: NodeContext, private readonly shared: VpcsShared,
    public consolePort: number, private readonly macByte: number, private readonly vpcsUdp: number, private readonly wireUdp: number) {
    super(id, name, ctx);
    this.status = 'stopped';
  }

  /** Creates the node (not started): console port, MAC byte, two internal UDP ports, the wire, the startup script. */
  static async create(body: VpcsCreate, ctx: NodeContext, shared: VpcsShared): Promise<VpcsNode> {
    await resolveVpcsBinary(shared.binary);
    const id = nodeIdOr(body.node_id);
    const consolePort = await shared.consolePorts.allocate(body.console ?? undefined);
    const macByte = shared.macBytes.allocate(ctx.projectId, id, body.mac_address ? parseInt(body.mac_address.slice(-2), 16) : undefined);
    const vpcsUdp = await ctx.udpPorts.allocate(ctx.projectId);
    const wireUdp = await ctx.udpPorts.allocate(ctx.projectId);
    const node = new VpcsNode(id, body.name, ctx, shared, consolePort, macByte, vpcsUdp, wireUdp);
    await ctx.dataplane.createNode(id, 'hub', [VPCS_SIDE, LINK_SIDE].map((port) => ({ port, type: 'access' as const, vlan: 1 })));
    const script = body.startup_script ?? (await readStartupConfig(node.dir)) ?? '';
    await writeStartupConfig(node.dir, scriptFor(script, body.name));
    return node;
  }

  get dir(): string {
    return join(this.ctx.projectDir, 'project-files', 'vpcs', this.id);
  }

  update(body: Partial<VpcsCreate>): Promise<void> {
    return this.lock.run(async () => {
      if (body.console !== undefined && body.console !== null && body.console !== this.consolePort) await this.moveConsole(body.console);
      if (body.name !== undefined) this.name = body.name;
      if (body.name !== undefined || body.startup_script !== undefined) {
        const script = body.startup_script ?? (await readStartupConfig(this.dir)) ?? '';
        await writeStartupConfig(this.dir, scriptFor(script, this.name));
      }
    });
  }

  /** Moves a stopped VPCS's console to another TCP port (GNS3 allows it); a running one keeps its port (409). */
  private async moveConsole(port: number): Promise<void> {
    if (this.process?.isRunning) throw new ConflictError(`The console port of VPCS ${this.name} cannot change while it runs: stop it first`);
    await this.shared.consolePorts.allocate(port);
    this.shared.consolePorts.release(this.consolePort);
    this.consolePort = port;
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
      await this.ctx.dataplane.addNio(this.id, VPCS_SIDE, { bindHost: '127.0.0.1', lport: this.wireUdp, rhost: '127.0.0.1', rport: this.vpcsUdp });
      const proc = new VpcsProcess({
        nodeDir: this.dir,
        consolePort: this.consolePort,
        localUdpPort: this.vpcsUdp,
        remoteUdpPort: this.wireUdp,
        remoteHost: '127.0.0.1',
        macByte: this.macByte,
        binary: this.shared.binary,
        registry: this.shared.registry,
        label: `vpcs ${this.name} (${this.id})`,
      });
      proc.once('exit', (exit) => {
        this.ctx.log.warn(`VPCS ${this.name} stopped unexpectedly: ${exit.reason}`);
        void this.lock.run(() => this.unplug());
      });
      try {
        await proc.start();
      } catch (err) {
        await this.unplug();
        throw err;
      }
      this.commandLine = [await resolveVpcsBinary(this.shared.binary), ...proc.arguments()].join(' ');
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

  /** Frees everything: the process, the wire, the console port, the MAC byte. */
  override async destroy(): Promise<void> {
    await this.stop();
    await super.destroy();
    this.ctx.udpPorts.release(this.vpcsUdp);
    this.ctx.udpPorts.release(this.wireUdp);
    this.shared.consolePorts.release(this.consolePort);
    this.shared.macBytes.release(this.id);
  }

  toJSON(): Record<string, unknown> {
    return {
      node_id: this.id,
      project_id: this.ctx.projectId,
      name: this.name,
      status: this.status,
      console: this.consolePort,
      console_type: 'telnet',
      node_directory: this.dir,
      command_line: this.commandLine,
      mac_address: `00:50:79:66:68:${this.macByte.toString(16).padStart(2, '0')}`,
    };
  }

  private async unplug(): Promise<void> {
    this.process = undefined;
    this.status = 'stopped';
    await this.ctx.dataplane.removeNio(this.id, VPCS_SIDE).catch(() => {});
  }
}

/** Gives each VPCS of a project its own last MAC byte (VPCS MACs are 00:50:79:66:68:XX); projects are separate labs. */
export class MacByteAllocator {
  private readonly owners = new Map<string, string>();

  /** The byte wanted (ConflictError if another VPCS of the project has it), or the lowest free one. */
  allocate(projectId: string, nodeId: string, wanted?: number): number {
    const key = (b: number) => `${projectId}/${b}`;
    if (wanted !== undefined) {
      const owner = this.owners.get(key(wanted));
      if (owner && owner !== nodeId) throw new ConflictError(`MAC address 00:50:79:66:68:${wanted.toString(16).padStart(2, '0')} is already used by another VPCS of this project`);
      this.owners.set(key(wanted), nodeId);
      return wanted;
    }
    for (let b = 0; b < 256; b++) {
      if (!this.owners.has(key(b))) {
        this.owners.set(key(b), nodeId);
        return b;
      }
    }
    throw new ConflictError('No VPCS MAC address left in this project (256 in use)');
  }

  release(nodeId: string): void {
    for (const [key, owner] of this.owners) if (owner === nodeId) this.owners.delete(key);
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
