import type { Node, NodeCreate } from '../client/nodes.js';
import { renderStartupConfig } from '../util/vpcs-script.js';
import { DEFAULT_HUB_PORTS, type NodeSpec, type StartupFile } from './model.js';

/** A switch's ports_mapping as GNS3 takes it (ethertype only on qinq ports: 2.2 allows '', 3.x refuses it). */
export type SwitchPortsMapping = { name: string; port_number: number; type: string; vlan: number; ethertype?: string }[];

/** The VPCS startup script a file node asks for: its name, then ip/gateway and dns. */
export function vpcsScriptOf(spec: NodeSpec): string {
  return renderStartupConfig({ name: spec.name, ip: spec.ip, gateway: spec.gateway, dns: spec.dns });
}

/**
 * The GNS3 node properties a file node is created with, by type: a switch's ports_mapping, a
 * hub's, a cloud's, a qemu node's image, RAM, adapters, CPUs, kernel boot and NIC model, a docker node's
 * image, adapters, environment, start command and startup volumes; then the file's own `properties`. A VPCS's
 * script is not among them: a GNS3 2.2 controller keeps a startup_script property and sends it
 * back with every later change, which the VPCS update schema refuses (a rename would fail), so
 * the applier writes startup.vpc through the node's files once the node exists.
 */
export function nodeCreateProperties(spec: NodeSpec): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  if (spec.type === 'ethernet_switch') {
    properties.ports_mapping = (spec.switchPorts ?? []).map((p) => ({ name: p.name, port_number: p.port, type: p.type, vlan: p.vlan, ...(p.ethertype ? { ethertype: p.ethertype } : {}) }));
  }
  if (spec.type === 'ethernet_hub') {
    properties.ports_mapping = Array.from({ length: spec.hubPorts ?? DEFAULT_HUB_PORTS }, (_, i) => ({ name: `Ethernet${i}`, port_number: i }));
  }
  if (spec.type === 'cloud') {
    properties.ports_mapping = (spec.cloudPorts ?? []).map((p) => ({ name: p.name, port_number: p.port, type: p.type, interface: p.interface }));
  }
  if (spec.type === 'qemu') {
    if (spec.image !== undefined) properties.hda_disk_image = spec.image;
    if (spec.ram !== undefined) properties.ram = spec.ram;
    if (spec.adapters !== undefined) properties.adapters = spec.adapters;
    if (spec.cpus !== undefined) properties.cpus = spec.cpus;
    if (spec.kernel !== undefined) properties.kernel_image = spec.kernel;
    if (spec.initrd !== undefined) properties.initrd = spec.initrd;
    if (spec.kernelCommandLine !== undefined) properties.kernel_command_line = spec.kernelCommandLine;
    if (spec.adapterType !== undefined) properties.adapter_type = spec.adapterType;
  }
  if (spec.type === 'docker') Object.assign(properties, dockerProperties(spec));
  const merged = { ...properties, ...(spec.properties ?? {}) };
  // The startup files' directories are volumes whatever else `properties` lists.
  if (spec.type === 'docker' && spec.files?.length) merged.extra_volumes = startupVolumes(spec.files, merged.extra_volumes);
  return merged;
}

/** GNS3's docker properties of a file node: image (GNS3 adds `:latest` to an untagged one, so do we), adapters, environment, start_command. */
function dockerProperties(spec: NodeSpec): Record<string, unknown> {
  const properties: Record<string, unknown> = { image: taggedImage(spec.image!) };
  if (spec.adapters !== undefined) properties.adapters = spec.adapters;
  if (spec.env !== undefined) properties.environment = Object.entries(spec.env).map(([key, value]) => `${key}=${value}`).join('\n');
  if (spec.cmd !== undefined) properties.start_command = spec.cmd;
  return properties;
}

/** `frr` → `frr:latest`, GNS3's rule (docker_vm.py: no `:` anywhere in the name means no tag); a server that keeps the name as given compares equal. */
export function taggedImage(image: string): string {
  return image.includes(':') ? image : `${image}:latest`;
}

/**
 * The extra_volumes a docker node needs for its startup files: each file's directory (one
 * already below another volume is in it), after the volumes `properties` gave, in order.
 */
export function startupVolumes(files: readonly StartupFile[], given: unknown): string[] {
  const volumes = Array.isArray(given) ? given.map(String) : [];
  const below = (path: string, volume: string) => path === volume || path.startsWith(`${volume}/`);
  const dirs = [...new Set(files.map((f) => f.path.slice(0, f.path.lastIndexOf('/'))))].sort();
  for (const dir of dirs) if (!volumes.some((v) => below(dir, v))) volumes.push(dir);
  return volumes;
}

/** The node file a startup file is written to: its container path below the node directory (`etc/frr/frr.conf`). */
export function startupNodeFile(file: StartupFile): string {
  return file.path.slice(1);
}

/** POST /v2/projects/{project_id}/nodes for a file node (not a template node). */
export function nodeCreateBody(spec: NodeSpec, computeId: string): NodeCreate {
  // A pinned management address goes with the create only: the server's answer holds it with its prefix length.
  const pins = { ...(spec.mgmtIp !== undefined ? { mgmt_ipv4: spec.mgmtIp } : {}), ...(spec.mgmtIpv6 !== undefined ? { mgmt_ipv6: spec.mgmtIpv6 } : {}) };
  const body: NodeCreate = { name: spec.name, node_type: spec.type!, compute_id: computeId, properties: { ...nodeCreateProperties(spec), ...pins } };
  if (spec.x !== undefined) body.x = spec.x;
  if (spec.y !== undefined) body.y = spec.y;
  return body;
}

/** A server switch's ports_mapping (GNS3's default when it has none). */
export function switchPortsOf(node: Node): SwitchPortsMapping {
  const mapping = node.properties.ports_mapping as SwitchPortsMapping | undefined;
  return mapping ?? Array.from({ length: 8 }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: 'access', vlan: 1, ethertype: '' }));
}
