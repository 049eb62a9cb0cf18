import type { NodeContext } from '../../compute/node-context.js';
import { nodeIdOr } from '../../compute/nodes/dataplane-node.js';
import { checkIfname } from '../../dataplane/nio-host.js';
import { ConflictError, InvalidError } from '../../errors.js';
import type { FromSchema } from '../../schemas/validation.js';
import { hostInterfaceList } from './host-interface-list.js';
import { HostPortsNode, type HostPort } from './host-ports-node.js';
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

/** Every non-special host interface as an ethernet port (what GNS3's cloud has when given no ports). */
function defaultPorts(): HostPort[] {
  return hostInterfaceList().filter((i) => !i.special).map((i, n) => ({ name: i.name, port_number: n, type: i.type, interface: i.name }));
}

function checkPorts(ports: readonly HostPort[]): HostPort[] {
  const numbers = new Set<number>();
  const interfaces = new Set<string>();
  for (const p of ports) {
    if (numbers.has(p.port_number)) throw new InvalidError(`ports_mapping: port_number ${p.port_number} appears twice`);
    if (interfaces.has(p.interface)) throw new InvalidError(`ports_mapping: interface ${p.interface} appears twice`);
    numbers.add(p.port_number);
    interfaces.add(checkIfname(p.interface));
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

  static async create(body: CloudCreate, ctx: NodeContext, missing: () => string | undefined): Promise<CloudNode> {
    const why = missing();
    if (why) throw new ConflictError(why);
    const ports = checkPorts(body.ports_mapping ?? defaultPorts());
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
      if (body.ports_mapping) await this.remapHostPorts(checkPorts(body.ports_mapping));
      if (body.name !== undefined) this.name = body.name;
      for (const key of ['remote_console_host', 'remote_console_port', 'remote_console_type', 'remote_console_http_path'] as const) {
        if (body[key] !== undefined) (this.console as unknown as Record<string, unknown>)[key] = body[key];
      }
    });
  }

  toJSON(): Record<string, unknown> {
    return {
      ...this.identityJSON(),
      ports_mapping: this.ports,
      interfaces: hostInterfaceList(),
      ...this.console,
      console: null,
      console_type: 'none',
    };
  }
}
