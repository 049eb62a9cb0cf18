import { checkQemuOptions, relativeImageName } from '../compute/qemu/qemu-options.js';
import { checkStartupScript } from '../compute/vpcs/script-commands.js';
import { ConflictError, InvalidError } from '../errors.js';
import { DOCKER_KIND } from '../kinds/docker/index.js';
import type { NodePort } from './node-ports.js';
import { ethernetPort, standardPorts } from './standard-ports.js';

export { standardPorts } from './standard-ports.js';
import { ETHERNET_HUB_TEMPLATE, ETHERNET_SWITCH_TEMPLATE, QEMU_TEMPLATE, VPCS_TEMPLATE, type TemplateSpec, type TemplateType } from './template-types.js';

/** What a node type's rules may read of a node. */
export interface NodeView {
  properties: Record<string, unknown>;
  /** The compute's last node JSON. */
  computeState: Record<string, unknown>;
  /** Controller-side port naming (GNS3 node fields). */
  layout: { port_name_format: string; port_segment_size: number; first_port_name: string | null; custom_adapters: unknown[] };
}

/** One node type as the controller knows it. */
export interface ControllerNodeType {
  type: string;
  /** Runs from creation on (switch, hub): captures and filters prefer its end of a link, as GNS3 does. */
  alwaysRunning: boolean;
  /** The ports a node of this type has. */
  ports(node: NodeView): NodePort[];
  /** Properties the controller decides before the node goes to its compute (given the other nodes' properties). */
  prepare?(properties: Record<string, unknown>, others: Record<string, unknown>[]): void;
  /** Controller fields the compute needs too (GNS3 sends custom_adapters to QEMU). */
  computeFields?(node: NodeView): Record<string, unknown>;
  /**
   * Checks the properties a client gives that would reach a command line on the compute
   * (InvalidError). The controller runs it for remote computes, which may be GNS3 servers that
   * check nothing; the local compute holds its nodes to the full rules itself.
   */
  checkProperties?(properties: Record<string, unknown>, opts: { unsafeOptions: boolean }): void;
  /** What templates of this type look like (GNS3 2.2's template schema), built-in one included. */
  template: TemplateSpec;
  /**
   * The symbol a node of this type made through the API without one gets. GNS3 gives every such node
   * `:/symbols/computer.svg` (DEFAULT_SYMBOL, used when this is absent); emuctl keeps its device symbol for switches and hubs.
   */
  apiSymbol?: string;
}

/** Ethernet ports from the compute's ports_mapping (switch, hub). */
function mappedPorts(node: NodeView): NodePort[] {
  const mapping = (node.computeState.ports_mapping ?? node.properties.ports_mapping) as { name: string; port_number: number }[] | undefined;
  return (mapping ?? []).map((p) => ethernetPort(p.name, 0, p.port_number));
}


/**
 * VPCS MACs are 00:50:79:66:68:XX; the controller picks XX unique in the project, whichever compute
 * runs each VPCS (also for a node restored without one: portable archives leave it out).
 */
function freeVpcsMac(properties: Record<string, unknown>, others: Record<string, unknown>[]): void {
  if (properties.mac_address !== undefined && properties.mac_address !== null) return;
  const used = new Set(others.map((p) => String(p.mac_address ?? '').toLowerCase()));
  for (let b = 0; b < 256; b++) {
    const mac = `00:50:79:66:68:${b.toString(16).padStart(2, '0')}`;
    if (!used.has(mac)) return void (properties.mac_address = mac);
  }
  throw new ConflictError('No VPCS MAC address left in this project (256 VPCS)');
}

/** The node types the controller can place on a compute: the one list it learns them from. */
const TYPES: ControllerNodeType[] = [
  { type: 'ethernet_switch', alwaysRunning: true, ports: mappedPorts, template: ETHERNET_SWITCH_TEMPLATE, apiSymbol: ETHERNET_SWITCH_TEMPLATE.symbol },
  { type: 'ethernet_hub', alwaysRunning: true, ports: mappedPorts, template: ETHERNET_HUB_TEMPLATE, apiSymbol: ETHERNET_HUB_TEMPLATE.symbol },
  {
    type: 'vpcs',
    alwaysRunning: false,
    ports: () => [ethernetPort('Ethernet0', 0, 0)],
    prepare: freeVpcsMac,
    checkProperties: (p) => void (typeof p.startup_script === 'string' && checkStartupScript(p.startup_script)),
    template: VPCS_TEMPLATE,
  },
  {
    type: 'qemu',
    alwaysRunning: false,
    ports: standardPorts,
    computeFields: (node) => (node.layout.custom_adapters?.length ? { custom_adapters: node.layout.custom_adapters } : {}),
    checkProperties: (p, { unsafeOptions }) => void (!unsafeOptions && typeof p.options === 'string' && checkQemuOptions(p.options, relativeImageName)),
    template: QEMU_TEMPLATE,
  },
  { type: DOCKER_KIND.type, ...DOCKER_KIND.controller, template: DOCKER_KIND.template },
];
const BY_TYPE = new Map(TYPES.map((t) => [t.type, t]));

/** The names of the known node types. */
export function nodeTypeNames(): string[] {
  return TYPES.map((t) => t.type);
}

/** The rules of a node type, or InvalidError (400) listing the known ones. */
export function nodeTypeOf(type: string): ControllerNodeType {
  const found = BY_TYPE.get(type);
  if (!found) throw new InvalidError(`Unknown node_type '${type}' (known: ${nodeTypeNames().join(', ')})`);
  return found;
}

/** The rules of a node type when known (a node restored from a topology file may name another). */
export function findNodeType(type: string): ControllerNodeType | undefined {
  return BY_TYPE.get(type);
}

/** The template types: one per node type. */
export function templateTypes(): TemplateType[] {
  return TYPES.map((t) => ({ type: t.type, ...t.template }));
}

/** The template type of that name, if this controller knows it. */
export function templateType(type: string): TemplateType | undefined {
  const found = BY_TYPE.get(type);
  return found && { type: found.type, ...found.template };
}

/** The symbol a node of that type made through the API without one gets, if not GNS3's DEFAULT_SYMBOL. */
export function apiSymbolOf(nodeType: string): string | undefined {
  return BY_TYPE.get(nodeType)?.apiSymbol;
}
