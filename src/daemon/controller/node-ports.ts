/** A node port as the GNS3 controller lists it. */
export interface NodePort {
  name: string;
  short_name: string;
  adapter_number: number;
  port_number: number;
  link_type: 'ethernet' | 'serial';
  data_link_types: Record<string, string>;
}

const ETHERNET = { Ethernet: 'DLT_EN10MB' };

/** The ports of a node, derived from the compute's node JSON (ports_mapping) or its type. */
export function portsOf(nodeType: string, computeNode: Record<string, unknown>): NodePort[] {
  const mapping = computeNode.ports_mapping as { name: string; port_number: number }[] | undefined;
  if (mapping) {
    return mapping.map((p) => ({
      name: p.name,
      short_name: p.name.replace(/^Ethernet/, 'e'),
      adapter_number: 0,
      port_number: p.port_number,
      link_type: 'ethernet',
      data_link_types: ETHERNET,
    }));
  }
  if (nodeType === 'vpcs') return [{ name: 'Ethernet0', short_name: 'e0', adapter_number: 0, port_number: 0, link_type: 'ethernet', data_link_types: ETHERNET }];
  return [];
}
