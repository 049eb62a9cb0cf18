import type { SwitchPortConfig } from '../../dataplane/types.js';
import { InvalidError, NotFoundError } from '../../errors.js';
import type { NodeContext } from '../../compute/node-context.js';
import type { ETHERNET_SWITCH_CREATE_SCHEMA, ETHERNET_SWITCH_UPDATE_SCHEMA } from './schemas.js';
import type { FromSchema } from '../../schemas/validation.js';
import { nodeOwner } from '../../compute/ownership.js';
import { DataplaneNode, nodeIdOr } from '../../compute/nodes/dataplane-node.js';
import { SWITCH_PORTS } from './template.js';

/** A switch create body, as ETHERNET_SWITCH_CREATE_SCHEMA accepts it. */
export type SwitchCreate = FromSchema<typeof ETHERNET_SWITCH_CREATE_SCHEMA>;
type SwitchUpdate = FromSchema<typeof ETHERNET_SWITCH_UPDATE_SCHEMA>;
type PortMappingBody = NonNullable<SwitchCreate['ports_mapping']>[number];

/** One entry of GNS3's ports_mapping for a switch, as the switch keeps it (the VLAN filled in). */
export type SwitchPortMapping = Omit<PortMappingBody, 'vlan'> & { vlan: number };

/** An Ethernet switch: MAC learning per VLAN over UDP-tunnel ports. */
export class EthernetSwitchNode extends DataplaneNode {
  readonly nodeType = 'ethernet_switch';
  ports: SwitchPortMapping[];

  private constructor(id: string, name: string, ports: SwitchPortMapping[], ctx: NodeContext, private consolePort: number) {
    super(id, name, ctx);
    this.ports = ports;
  }

  /**
   * Creates the switch and its dataplane node. Like GNS3's, it holds a console TCP port (the one asked
   * for, else a free one) with console_type none: nothing listens there, but clients expect the number.
   */
  static async create(body: SwitchCreate, ctx: NodeContext): Promise<EthernetSwitchNode> {
    const ports = normalisePorts(body.ports_mapping ?? SWITCH_PORTS);
    const id = nodeIdOr(body.node_id);
    const consolePort = await ctx.resources.consolePorts.allocate(nodeOwner(ctx.projectId, id), body.console ?? undefined);
    const node = new EthernetSwitchNode(id, body.name, ports, ctx, consolePort);
    await ctx.dataplane.createNode(node.id, 'switch', ports.map(toDataplanePort));
    return node;
  }

  /** Renames and/or re-maps ports; live ports take the new VLAN settings at once. */
  update(body: SwitchUpdate): Promise<void> {
    return this.lock.run(async () => {
      if (body.name !== undefined) this.name = body.name;
      if (body.console !== undefined && body.console !== null && body.console !== this.consolePort) this.consolePort = await this.moveConsolePort(this.consolePort, body.console);
      if (!body.ports_mapping) return;
      const ports = normalisePorts(body.ports_mapping);
      await this.remapPorts(ports.map(toDataplanePort));
      this.ports = ports;
    });
  }

  protected dataplanePort(adapter: number, port: number): number {
    if (adapter !== 0) throw new NotFoundError(`Adapter ${adapter} doesn't exist on switch ${this.name} (only adapter 0)`);
    if (!this.ports.some((p) => p.port_number === port)) throw new NotFoundError(`Port ${port} doesn't exist on switch ${this.name}`);
    return port;
  }

  protected portList() {
    return this.ports.map((p) => ({ adapter: 0, port: p.port_number, name: p.name }));
  }

  toJSON(): Record<string, unknown> {
    return {
      node_id: this.id,
      project_id: this.ctx.projectId,
      name: this.name,
      ports_mapping: this.ports,
      status: this.status,
      console: this.consolePort,
      console_type: 'none',
    };
  }
}

function normalisePorts(ports: PortMappingBody[]): SwitchPortMapping[] {
  const numbers = new Set<number>();
  const names = new Set<string>();
  return ports.map((p) => {
    if (numbers.has(p.port_number)) throw new InvalidError(`ports_mapping: port_number ${p.port_number} appears twice`);
    if (names.has(p.name)) throw new InvalidError(`ports_mapping: port name '${p.name}' appears twice`);
    numbers.add(p.port_number);
    names.add(p.name);
    if (p.type !== 'qinq' && p.ethertype && p.ethertype !== '0x8100') throw new InvalidError(`ports_mapping: ethertype is only for qinq ports (port ${p.port_number})`);
    return { name: p.name, port_number: p.port_number, type: p.type, vlan: p.vlan ?? 1, ethertype: p.type === 'qinq' ? (p.ethertype || '0x8100') : '' };
  });
}

function toDataplanePort(p: SwitchPortMapping): SwitchPortConfig {
  return { port: p.port_number, type: p.type, vlan: p.vlan, ...(p.type === 'qinq' ? { ethertype: parseInt(p.ethertype || '0x8100', 16) } : {}) };
}
