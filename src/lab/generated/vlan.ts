// The VLAN module (modules: [vlan]): the lab's `vlans:` and the `vlan:` of its LAN links. A LAN
// with VLANs is one switch whose ports are access ports (one VLAN, untagged) or 802.1Q trunks
// (GNS3's dot1q: tagged, VLAN 1 native). Each VLAN of a LAN is a segment of its own: one subnet
// (its prefix:, else the next /24 of the lan pool), whose members are the VLAN's access ports
// (plain ethX) and the trunks that carry it (sub-interfaces ethX.ID). Addressing, OSPF and BGP
// see a segment as a LAN, so a router with a sub-interface in two VLANs routes between them.
import type { Pos } from '../file-position.js';
import { LabFileError, type Locator, type YamlPath } from '../locate.js';
import type { SwitchPortSpec } from '../model.js';
import { DEVICES } from './devices.js';
import { networkOf, parsePrefix } from './ip.js';
import type { Member, PlanLink, PlanNode, PlanVlan } from './model.js';

/** The native (untagged) VLAN of a trunk port: no VLAN of a trunk may have this id. */
export const TRUNK_NATIVE_VLAN = 1;

/** One member's port on a LAN with VLANs: an access port of one VLAN, or a trunk of several. */
export type VlanPort = { access: PlanVlan } | { trunk: PlanVlan[] };

type Raw = Record<string, any>;

/** The lab's `vlans:`, checked: ids in 1-4094 and unique, prefixes IPv4 subnets. Empty without `vlans:`. */
export function readVlans(raw: Raw, where: Locator, modules: readonly string[]): Map<string, PlanVlan> {
  const out = new Map<string, PlanVlan>();
  if (raw.vlans === undefined) return out;
  if (!modules.includes('vlan')) throw where.keyError([], 'vlans', 'vlans: is for the VLAN module: add vlan to modules: (modules: [vlan])');
  const byId = new Map<number, string>();
  for (const name of where.keys(['vlans'])) {
    const v = raw.vlans[name];
    const idPath: YamlPath = ['vlans', name, 'id'];
    if (v.id < 1 || v.id > 4094) throw where.error(idPath, `VLAN ${name} has id ${v.id}: an 802.1Q VLAN id is 1-4094`);
    const other = byId.get(v.id);
    if (other !== undefined) throw where.error(idPath, `VLAN ${name} has id ${v.id}, as VLAN ${other} does: give each VLAN its own id`);
    byId.set(v.id, name);
    let prefix;
    if (v.prefix !== undefined) {
      const p = parsePrefix(v.prefix);
      if (!p || p.family !== 4 || p.length > 30) throw where.error(['vlans', name, 'prefix'], `bad prefix "${v.prefix}" of VLAN ${name}: expected an IPv4 subnet of /30 or larger, e.g. 198.19.10.0/24`);
      prefix = networkOf(p);
    }
    out.set(name, { name, id: v.id, pos: where.key(['vlans'], name), ...(prefix ? { prefix } : {}) });
  }
  return out;
}

/** A link's `vlan:`: each member's port, in member order. */
export function readLinkVlans(value: unknown, linkPath: YamlPath, members: readonly Member[], nodes: ReadonlyMap<string, PlanNode>, vlans: ReadonlyMap<string, PlanVlan>, where: Locator, modules: readonly string[]): VlanPort[] {
  const path: YamlPath = [...linkPath, 'vlan'];
  if (!modules.includes('vlan')) throw where.keyError(linkPath, 'vlan', 'vlan: is for the VLAN module: add vlan to modules: (modules: [vlan]) and the VLANs to vlans:');
  const lookup = (name: string, at: YamlPath): PlanVlan => {
    const v = vlans.get(name);
    if (!v) throw where.error(at, `unknown VLAN "${name}"; ${vlans.size ? `vlans: ${[...vlans.keys()].join(', ')}` : 'the lab has no vlans: (vlans: {NAME: {id: N}})'}`);
    return v;
  };
  if (typeof value === 'string') {
    const v = lookup(value, path);
    return members.map(() => ({ access: v }));
  }
  const map = value as Raw;
  const names = members.map((m) => m.node);
  for (const key of where.keys(path)) {
    if (!names.includes(key)) throw where.keyError(path, key, `${key} is not on this link; its members: ${names.join(', ')}`);
  }
  return members.map((m): VlanPort => {
    const given = map[m.node];
    if (given === undefined) throw where.error(path, `${m.node} has no VLAN on this link: give it one (${m.node}: NAME) or a trunk (${m.node}: [NAME, NAME])`);
    if (typeof given === 'string') return { access: lookup(given, [...path, m.node]) };
    const device = nodes.get(m.node)!.device;
    if (!DEVICES[device].subinterfaces) throw where.keyError(path, m.node, `${m.node} cannot be on a trunk: a ${device} device has no VLAN sub-interfaces; give it one VLAN (${m.node}: NAME)`);
    const trunk = (given as string[]).map((name, i) => lookup(name, [...path, m.node, i]));
    const native = trunk.findIndex((v) => v.id === TRUNK_NATIVE_VLAN);
    if (native >= 0) throw where.error([...path, m.node, native], `VLAN ${trunk[native].name} (id ${TRUNK_NATIVE_VLAN}) cannot be on a trunk: id ${TRUNK_NATIVE_VLAN} is a trunk port's native, untagged VLAN`);
    return { trunk };
  });
}

/** The segments of a LAN with VLANs, one per VLAN on it in `vlans:` order: the members in that VLAN, a trunk's as its sub-interface. */
export function vlanSegments(link: PlanLink, ports: readonly VlanPort[], vlans: ReadonlyMap<string, PlanVlan>): PlanLink[] {
  const out: PlanLink[] = [];
  for (const vlan of vlans.values()) {
    const members: Member[] = [];
    link.members.forEach((m, i) => {
      const port = ports[i];
      if ('access' in port && port.access === vlan) members.push({ ...m });
      if ('trunk' in port && port.trunk.includes(vlan)) members.push({ ...m, vlan: vlan.id });
    });
    if (members.length) out.push({ index: link.index, pos: link.pos, kind: 'lan', members, vlan, ospf: link.ospf, pinned: {}, subnet: {} });
  }
  return out;
}

/** The switch's ports for a LAN with VLANs: member i on port i; unused ports are access ports of VLAN 1. */
export function vlanSwitchPorts(ports: readonly VlanPort[], count: number): SwitchPortSpec[] {
  return Array.from({ length: count }, (_, port): SwitchPortSpec => {
    const p = ports[port];
    if (p && 'trunk' in p) return { port, name: `Ethernet${port}`, type: 'dot1q', vlan: TRUNK_NATIVE_VLAN };
    return { port, name: `Ethernet${port}`, type: 'access', vlan: p ? p.access.id : 1 };
  });
}

/** Refuses a VLAN on a second LAN: a VLAN is one broadcast domain, on one switch. */
export function checkOneLan(segments: readonly PlanLink[], seen: Map<string, PlanLink>, file: string, vlanPos: (link: PlanLink) => Pos): void {
  for (const s of segments) {
    const first = seen.get(s.vlan!.name);
    if (first && first.index !== s.index) throw new LabFileError(file, vlanPos(s), `VLAN ${s.vlan!.name} is on the LAN of line ${first.pos.line} already: a VLAN is on one LAN (one switch)`);
    seen.set(s.vlan!.name, s);
  }
}
