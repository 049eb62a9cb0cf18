import { macPlus } from '../../util/mac-address.js';
import { ConflictError } from '../errors.js';

/** What a node type's controller rules may read of a node. */
export interface NodeView {
  properties: Record<string, unknown>;
  /** The compute's last node JSON. */
  computeState: Record<string, unknown>;
  /** Controller-side port naming (GNS3 node fields). */
  layout: { port_name_format: string; port_segment_size: number; first_port_name: string | null; custom_adapters: unknown[] };
}

/** A node port as the GNS3 controller lists it. */
export interface NodePort {
  name: string;
  short_name: string;
  adapter_number: number;
  port_number: number;
  link_type: 'ethernet' | 'serial';
  data_link_types: Record<string, string>;
  /** QEMU ports also carry their adapter's device model and MAC, as in GNS3. */
  [field: string]: unknown;
}

const ETHERNET = { Ethernet: 'DLT_EN10MB' };

/** An Ethernet port as GNS3 lists it (short name e0 for Ethernet0). */
export function ethernetPort(name: string, adapter: number, port: number, extra: Record<string, unknown> = {}): NodePort {
  return { name, short_name: name.replace(/^Ethernet/, 'e'), adapter_number: adapter, port_number: port, link_type: 'ethernet', data_link_types: ETHERNET, ...extra };
}

/** Ethernet ports from the compute's ports_mapping (switch, hub). */
export function mappedPorts(node: NodeView): NodePort[] {
  const mapping = (node.computeState.ports_mapping ?? node.properties.ports_mapping) as { name: string; port_number: number }[] | undefined;
  return (mapping ?? []).map((p) => ethernetPort(p.name, 0, p.port_number));
}

interface CustomAdapter {
  adapter_number: number;
  port_name?: string;
  adapter_type?: string;
  mac_address?: string;
}

/**
 * GNS3's standard port naming: port_name_format is a Python format string over the interface
 * number ({0}, {port0}, {port1}), the segment ({1}, {segment0}, {segment1}) and {adapter};
 * first_port_name names adapter 0; custom_adapters rename single adapters.
 */
export function standardPorts(node: NodeView): NodePort[] {
  const p = { ...node.properties, ...node.computeState };
  const adapters = Number(p.adapters ?? 1);
  const { port_name_format: format, port_segment_size: segmentSize, first_port_name: first } = node.layout;
  const custom = (node.layout.custom_adapters ?? []) as CustomAdapter[];
  const ports: NodePort[] = [];
  let iface = 0;
  let segment = 0;
  for (let a = 0; a < adapters; a++) {
    const c: Partial<CustomAdapter> = custom.find((x) => x.adapter_number === a) ?? {};
    let name: string;
    if (first && a === 0) name = c.port_name ?? first;
    else {
      name = c.port_name ?? formatPortName(format, { 0: iface, 1: segment, port0: iface, port1: iface + 1, segment0: segment, segment1: segment + 1, adapter: a });
      iface++;
      if (!segmentSize) segment++;
      else if (iface % segmentSize === 0) {
        segment++;
        iface = 0;
      }
    }
    const mac = c.mac_address ?? (typeof p.mac_address === 'string' && p.mac_address ? macPlus(p.mac_address, a) : undefined);
    ports.push(ethernetPort(name, a, 0, { adapter_type: c.adapter_type ?? p.adapter_type ?? null, mac_address: mac ?? null }));
  }
  return ports;
}

function formatPortName(format: string, values: Record<string, number>): string {
  let auto = 0;
  return format.replace(/\{\{|\}\}|\{(\w*)(?::[^}]*)?\}/g, (m, key: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const k = key === '' ? String(auto++) : key!;
    if (!(k in values)) throw new ConflictError(`Invalid port name format ${format}: unknown field {${k}}`);
    return String(values[k]);
  });
}
