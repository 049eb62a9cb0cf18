import type { SwitchPortConfig } from '../../dataplane/types.js';
import { InvalidError, NotFoundError } from '../../errors.js';
import type { NodeContext } from '../../compute/node-context.js';
import type { ETHERNET_HUB_CREATE_SCHEMA, ETHERNET_HUB_UPDATE_SCHEMA } from './schemas.js';
import type { FromSchema } from '../../schemas/validation.js';
import { DataplaneNode, nodeIdOr } from '../../compute/nodes/dataplane-node.js';
import { HUB_PORTS } from './template.js';

/** A hub create body, as ETHERNET_HUB_CREATE_SCHEMA accepts it. */
export type HubCreate = FromSchema<typeof ETHERNET_HUB_CREATE_SCHEMA>;
type HubUpdate = FromSchema<typeof ETHERNET_HUB_UPDATE_SCHEMA>;
/** One entry of GNS3's ports_mapping for a hub. */
export type HubPortMapping = NonNullable<HubCreate['ports_mapping']>[number];

/** An Ethernet hub: every frame goes out of every other port. */
export class EthernetHubNode extends DataplaneNode {
  readonly nodeType = 'ethernet_hub';

  private constructor(id: string, name: string, public ports: HubPortMapping[], ctx: NodeContext) {
    super(id, name, ctx);
  }

  /** Creates the hub (default 8 ports Ethernet0..7) and its dataplane node. */
  static async create(body: HubCreate, ctx: NodeContext): Promise<EthernetHubNode> {
    const ports = checkPorts(body.ports_mapping ?? HUB_PORTS);
    const node = new EthernetHubNode(nodeIdOr(body.node_id), body.name, ports, ctx);
    await ctx.dataplane.createNode(node.id, 'hub', ports.map(hubPort));
    return node;
  }

  update(body: HubUpdate): Promise<void> {
    return this.lock.run(async () => {
      if (body.name !== undefined) this.name = body.name;
      if (!body.ports_mapping) return;
      const ports = checkPorts(body.ports_mapping);
      await this.remapPorts(ports.map(hubPort));
      this.ports = ports;
    });
  }

  protected dataplanePort(adapter: number, port: number): number {
    if (adapter !== 0) throw new NotFoundError(`Adapter ${adapter} doesn't exist on hub ${this.name} (only adapter 0)`);
    if (!this.ports.some((p) => p.port_number === port)) throw new NotFoundError(`Port ${port} doesn't exist on hub ${this.name}`);
    return port;
  }

  protected portList() {
    return this.ports.map((p) => ({ adapter: 0, port: p.port_number, name: p.name }));
  }

  toJSON(): Record<string, unknown> {
    return { node_id: this.id, project_id: this.ctx.projectId, name: this.name, ports_mapping: this.ports, status: this.status, console: null, console_type: 'none' };
  }
}

function checkPorts(ports: HubPortMapping[]): HubPortMapping[] {
  const seen = new Set<number>();
  for (const p of ports) {
    if (seen.has(p.port_number)) throw new InvalidError(`ports_mapping: port_number ${p.port_number} appears twice`);
    seen.add(p.port_number);
  }
  return ports.map((p) => ({ name: p.name, port_number: p.port_number }));
}

function hubPort(p: HubPortMapping): SwitchPortConfig {
  return { port: p.port_number, type: 'access', vlan: 1 };
}
