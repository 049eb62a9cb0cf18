import type { HostInterfacePolicy } from '../../compute/host-interface-policy.js';
import type { NodeContext } from '../../compute/node-context.js';
import type { CreateOptions } from '../../compute/node-types.js';
import type { HostNioSpec } from '../../dataplane/types.js';
import { nodeIdOr } from '../../compute/nodes/dataplane-node.js';
import { checkIfname } from '../../dataplane/nio-host.js';
import { ConflictError, InvalidError } from '../../errors.js';
import type { FromSchema } from '../../schemas/validation.js';
import { hostInterfaceList } from './host-interface-list.js';
import { HostPortsNode, type HostPort } from '../../compute/nodes/host-ports-node.js';
import type { CLOUD_CREATE_SCHEMA, CLOUD_UPDATE_SCHEMA } from './schemas.js';

type CloudCreate = FromSchema<typeof CLOUD_CREATE_SCHEMA>;
type CloudUpdate = FromSchema<typeof CLOUD_UPDATE_SCHEMA>;

/** GNS3's remote console fields of a cloud: kept and reported, emuctl does not connect to them. */
interface RemoteConsole {
  remote_console_host: string;
  remote_console_port: number | null;
  remote_console_type: string;
  remote_console_http_path: string;
}

/** Every host interface the policy allows, as an ethernet port (what GNS3's cloud has when given no ports). */
function defaultPorts(policy: HostInterfacePolicy): HostPort[] {
  return hostInterfaceList().filter((i) => !i.special && policy.allows(i.name)).map((i, n) => ({ name: i.name, port_number: n, type: i.type, interface: i.name }));
}

/**
 * The ports, checked: numbers and interfaces unique, names valid, and each interface one the policy
 * allows (400), unless the node is restored from a project, an archive or a lab file: then it is
 * made, and refuses to open the interface (409, see CloudNode.hostNio and start).
 */
function checkPorts(ports: readonly HostPort[], policy: HostInterfacePolicy, restoring = false): HostPort[] {
  const numbers = new Set<number>();
  const interfaces = new Set<string>();
  for (const p of ports) {
    if (numbers.has(p.port_number)) throw new InvalidError(`ports_mapping: port_number ${p.port_number} appears twice`);
    if (interfaces.has(p.interface)) throw new InvalidError(`ports_mapping: interface ${p.interface} appears twice`);
    numbers.add(p.port_number);
    interfaces.add(checkIfname(p.interface));
    if (!restoring) policy.check(p.interface, `ports_mapping (port ${p.name})`);
  }
  return ports.map((p) => ({ name: p.name, port_number: p.port_number, type: p.type, interface: p.interface }));
}

/**
 * GNS3's cloud: each port bridges a lab link to a host interface, `tap` (created when missing and
 * gone with the port when emuctl created it) or `ethernet` (an existing interface, AF_PACKET).
 */
export class CloudNode extends HostPortsNode {
  readonly nodeType = 'cloud';

  private constructor(id: string, name: string, ctx: NodeContext, ports: HostPort[], private console: RemoteConsole) {
    super(id, name, ctx, ports);
  }

  static async create(body: CloudCreate, ctx: NodeContext, missing: () => string | undefined, { restoring = false }: CreateOptions = {}): Promise<CloudNode> {
    const why = missing();
    if (why) throw new ConflictError(why);
    const ports = checkPorts(body.ports_mapping ?? defaultPorts(ctx.hostInterfaces), ctx.hostInterfaces, restoring);
    const node = new CloudNode(nodeIdOr(body.node_id), body.name, ctx, ports, {
      remote_console_host: body.remote_console_host ?? '127.0.0.1',
      remote_console_port: body.remote_console_port ?? 23,
      remote_console_type: body.remote_console_type ?? 'none',
      remote_console_http_path: body.remote_console_http_path ?? '/',
    });
    await node.setUp();
    return node;
  }

  update(body: CloudUpdate): Promise<void> {
    return this.lock.run(async () => {
      if (body.ports_mapping) await this.remapHostPorts(checkPorts(body.ports_mapping, this.ctx.hostInterfaces));
      if (body.name !== undefined) this.name = body.name;
      for (const key of ['remote_console_host', 'remote_console_port', 'remote_console_type', 'remote_console_http_path'] as const) {
        if (body[key] !== undefined) (this.console as unknown as Record<string, unknown>)[key] = body[key];
      }
    });
  }

  /** A port restored with an interface the policy refuses never opens it (409 naming it). */
  protected override hostNio(port: HostPort, opts: { existing?: boolean } = {}): HostNioSpec {
    this.ctx.hostInterfaces.checkInUse(port.interface, `${this.name} port ${port.name}`);
    return super.hostNio(port, opts);
  }

  /** Refuses to start (409) while a port names an interface the policy refuses, linked or not. */
  override async start(): Promise<void> {
    for (const p of this.ports) this.ctx.hostInterfaces.checkInUse(p.interface, `${this.name} port ${p.name}`);
    await super.start();
  }

  toJSON(): Record<string, unknown> {
    return {
      ...this.identityJSON(),
      ports_mapping: this.ports,
      interfaces: hostInterfaceList().filter((i) => this.ctx.hostInterfaces.allows(i.name)),
      ...this.console,
      console: null,
      console_type: 'none',
    };
  }
}
