// Reads the generated-lab parts of a lab file (device nodes, links without ports, LANs, pools,
// modules) into a LabPlan, and turns it into what the planner knows: docker nodes with their
// generated startup files, ethernet switches for LANs, and links between numbered ports.
// parse.ts calls it; every mistake is a LabFileError at its line and column.
import { LabFileError, type Locator, type YamlPath } from '../locate.js';
import type { EndSpec, LinkSpec, NodeSpec, Pos } from '../model.js';
import { allocateAddresses } from './addressing.js';
import { DEVICES, type Device } from './devices.js';
import { readGroups, type GroupSettings } from './groups.js';
import { addressText, networkOf, overlaps, parsePrefix, prefixText, type Prefix } from './ip.js';
import type { LabPlan, Member, ModuleSettings, PlanLink, PlanNode, PlanVlan, Pools } from './model.js';
import { checkOneLan, readLinkVlans, readVlans, vlanSegments, vlanSwitchPorts, type VlanPort } from './vlan.js';

/** The documented default pools. */
export const DEFAULT_POOLS = {
  4: { loopback: '10.0.0.0/16', p2p: '10.1.0.0/16', lan: '172.16.0.0/12' },
  6: { loopback: '2001:db8::/48', p2p: '2001:db8:1::/48', lan: '2001:db8:2::/48' },
} as const;
export const DEFAULT_OSPF = { area: '0.0.0.0', hello: 1, dead: 4 } as const;

/** Keys a device node may have (the rest is the device's business). */
const DEVICE_NODE_KEYS = ['device', 'compute', 'x', 'y', 'image', 'loopback', 'ospf', 'bgp'];
const DEVICE_ONLY_KEYS = ['device', 'loopback', 'ospf', 'bgp'];

type Raw = Record<string, any>;

/** A generated `links:` entry as read: the link, its text, and with vlan: each member's port and the VLANs' segments. */
interface Written {
  link: PlanLink;
  raw: Raw;
  ports?: VlanPort[];
  segments?: PlanLink[];
}

/** What parse.ts lends (passed in, not imported: an import cycle would deadlock the bundled CLI's lazy chunks). */
export interface ParseHelpers {
  expandVariables(text: string, env: Readonly<Record<string, string | undefined>>, error: (reason: string) => Error): string;
  gns3Filters(filters: Record<string, unknown>): Record<string, unknown[]>;
}

/** The generated-lab side of one lab file. */
export class GeneratedLab {
  private readonly rawNodes: Raw;

  constructor(private readonly raw: Raw, private readonly where: Locator, private readonly env: Readonly<Record<string, string | undefined>>, private readonly helpers: ParseHelpers) {
    this.rawNodes = raw.nodes ?? {};
  }

  /** Whether the node is a device node (`device: frr`). */
  isDevice(name: string): boolean {
    return this.rawNodes[name]?.device !== undefined;
  }

  /** Whether a `links:` entry is one of the generated forms (ends without ports, more than two ends, `{ends}` or `{lan}`). */
  owns(link: unknown): boolean {
    if (Array.isArray(link)) return !(link.length === 2 && link.every((end) => String(end).includes(':')));
    return typeof link === 'object' && link !== null && ('ends' in link || 'lan' in link);
  }

  /** A device node as the planner sees it: a docker node of the device's image (its files are added by complete()). */
  nodeSpec(name: string, defaultCompute: string): NodeSpec {
    const raw = this.rawNodes[name];
    const path = ['nodes', name];
    for (const key of Object.keys(raw)) {
      if (key === 'type' || key === 'template') throw this.where.keyError(path, key, `node ${name} has device: and ${key}:; give one`);
      if (!DEVICE_NODE_KEYS.includes(key)) throw this.where.keyError(path, key, `${key}: is not for device nodes (emuctl configures ${name} itself); a device node takes ${DEVICE_NODE_KEYS.join(', ')}`);
    }
    const device = DEVICES[raw.device];
    const imagePath = raw.image !== undefined ? [...path, 'image'] : ['devices', raw.device, 'image'];
    const imageText: string = raw.image ?? this.raw.devices?.[raw.device]?.image ?? device.image;
    const image = this.helpers.expandVariables(imageText, this.env, (reason) => this.where.error(imagePath, reason));
    return {
      name,
      pos: this.where.key(['nodes'], name),
      type: 'docker',
      device: raw.device,
      compute: raw.compute ?? defaultCompute,
      computePos: raw.compute !== undefined ? this.where.at([...path, 'compute']) : this.where.at(['defaults', 'compute']),
      x: raw.x,
      y: raw.y,
      image,
      adapters: device.interfaces,
    };
  }

  /**
   * Allocates interfaces and addresses and generates every device node's configuration: adds the
   * LAN switches to `nodes` and the generated links to `links`. Returns the plan, or undefined when
   * the file uses none of this.
   */
  complete(nodes: Map<string, NodeSpec>, links: LinkSpec[], ownedLinks: ReadonlySet<number>, defaultCompute: string): LabPlan | undefined {
    for (const name of Object.keys(this.rawNodes)) {
      if (this.isDevice(name)) continue;
      for (const key of DEVICE_ONLY_KEYS) {
        if (this.rawNodes[name][key] !== undefined) throw this.where.keyError(['nodes', name], key, `${key}: is for device nodes (device: frr or linux)`);
      }
    }
    (this.raw.links ?? []).forEach((link: Raw, index: number) => {
      if (ownedLinks.has(index) || Array.isArray(link)) return;
      for (const key of ['ospf', 'p2p_prefix', 'addresses', 'vlan']) {
        if (link[key] !== undefined) throw this.where.keyError(['links', index], key, `${key}: is for links written with ends: or lan: (device nodes), not endpoints:`);
      }
    });
    const deviceNames = this.where.keys(['nodes']).filter((n) => this.isDevice(n));
    const uses = ['modules', 'addressing', 'ospf', 'bgp', 'devices', 'vlans', 'groups'].filter((k) => this.raw[k] !== undefined);
    if (!deviceNames.length && !ownedLinks.size && !uses.length) return undefined;
    const settings = this.settings();
    const vlans = readVlans(this.raw, this.where, settings.modules);
    const groups = readGroups(this.raw, this.where);
    const plan: LabPlan = { nodes: deviceNames.map((n) => this.planNode(n, settings, groups.get(n))), links: [], pools: this.pools(), settings };
    const byName = new Map(plan.nodes.map((n) => [n.name, n]));
    const used = new Map<string, Set<number>>(plan.nodes.map((n) => [n.name, new Set()]));
    // Explicit links first: their ports are taken before anything is allocated.
    const explicit: { index: number; link: LinkSpec }[] = [];
    let next = 0;
    (this.raw.links ?? []).forEach((_: unknown, index: number) => {
      if (ownedLinks.has(index)) return;
      const link = links[next++];
      for (const end of link.ends) used.get(end.node)?.add(end.adapter);
      if (link.ends.every((e) => byName.has(e.node))) explicit.push({ index, link });
    });
    const written = [...ownedLinks].map((index) => this.readLink(index, byName, used, vlans, settings));
    for (const w of written) for (const m of w.link.members) if (m.adapter < 0) m.adapter = this.freeAdapter(m, byName.get(m.node)!, used);
    // A LAN with VLANs is addressed per VLAN: its segments take its place in the plan.
    const seen = new Map<string, PlanLink>();
    for (const w of written) {
      if (!w.ports) continue;
      w.segments = vlanSegments(w.link, w.ports, vlans);
      checkOneLan(w.segments, seen, this.where.file, (l) => this.where.at(['links', l.index, 'vlan']));
    }
    plan.links = [...explicit.map(({ index, link }) => this.explicitLink(index, link, byName)), ...written.flatMap((w) => w.segments ?? [w.link])].sort((a, b) => a.index - b.index);
    allocateAddresses(plan, this.where.file);
    this.addTopology(written, nodes, links, defaultCompute);
    for (const node of plan.nodes) this.configure(nodes.get(node.name)!, node, plan, used.get(node.name)!);
    return plan;
  }

  private settings(): ModuleSettings {
    const ospf = this.raw.ospf ?? {};
    return {
      modules: this.raw.modules ?? [],
      ospf: { area: areaText(ospf.area ?? DEFAULT_OSPF.area), cost: ospf.cost, hello: ospf.hello ?? DEFAULT_OSPF.hello, dead: ospf.dead ?? DEFAULT_OSPF.dead },
      bgp: { as: this.raw.bgp?.as },
    };
  }

  /** The pools, checked: each a network of its family, big enough, none overlapping another. */
  private pools(): Pools {
    const a = this.raw.addressing ?? {};
    const p2pPrefix: 30 | 31 = a.p2p_prefix ?? 31;
    const read = (family: 4 | 6, key: 'loopback' | 'p2p' | 'lan', text: string, path: YamlPath): Prefix => {
      const p = parsePrefix(text);
      if (!p || p.family !== family) throw this.where.error(path, `bad ${key} pool "${text}": expected an IPv${family} prefix such as ${DEFAULT_POOLS[family][key]}`);
      const longest = { loopback: family === 4 ? 32 : 128, p2p: family === 4 ? p2pPrefix : 64, lan: family === 4 ? 24 : 64 }[key];
      if (p.length > longest) throw this.where.error(path, `the ${key} pool ${text} is smaller than one block (/${longest})`);
      return networkOf(p);
    };
    const family = (f: 4 | 6, given: Raw, base: YamlPath) => {
      const out = {} as Pools[4];
      for (const key of ['loopback', 'p2p', 'lan'] as const) out[key] = read(f, key, given[key] ?? DEFAULT_POOLS[f][key], given[key] !== undefined ? [...base, key] : ['addressing']);
      const keys = ['loopback', 'p2p', 'lan'] as const;
      for (let i = 0; i < keys.length; i++) {
        for (let j = i + 1; j < keys.length; j++) {
          if (overlaps(out[keys[i]], out[keys[j]])) {
            const at = given[keys[j]] !== undefined ? [...base, keys[j]] : [...base, keys[i]];
            throw this.where.error(at, `the ${keys[i]} pool ${prefixText(out[keys[i]])} and the ${keys[j]} pool ${prefixText(out[keys[j]])} overlap`);
          }
        }
      }
      return out;
    };
    const pools: Pools = { 4: family(4, a, ['addressing']), p2pPrefix };
    if (a.ipv6) pools[6] = family(6, a.ipv6 === true ? {} : a.ipv6, ['addressing', 'ipv6']);
    return pools;
  }

  /** A device node with its settings: its own, else its group's, else the lab's. */
  private planNode(name: string, settings: ModuleSettings, group: GroupSettings | undefined): PlanNode {
    const raw = this.rawNodes[name];
    const device = DEVICES[raw.device];
    const pos = this.where.key(['nodes'], name);
    const pinnedLoopback: PlanNode['pinnedLoopback'] = {};
    if (raw.loopback !== undefined) {
      if (device.role !== 'router') throw this.where.keyError(['nodes', name], 'loopback', `loopback: is for routers; ${name} is a ${raw.device} host`);
      const p = parsePrefix(raw.loopback);
      if (!p || p.length !== (p.family === 4 ? 32 : 128)) throw this.where.error(['nodes', name, 'loopback'], `bad loopback "${raw.loopback}": expected an address/32 (or /128), e.g. 10.0.0.1/32`);
      pinnedLoopback[p.family] = p;
    }
    const routes = device.role === 'router';
    if ((raw.ospf || raw.bgp) && !routes) throw this.where.keyError(['nodes', name], raw.ospf ? 'ospf' : 'bgp', `${raw.ospf ? 'ospf' : 'bgp'}: is for routers; ${name} is a ${raw.device} host`);
    const as = raw.bgp?.as ?? group?.bgp.as ?? settings.bgp.as;
    const area = raw.ospf?.area ?? group?.ospf.area;
    if (routes && settings.modules.includes('bgp') && as === undefined) {
      throw new LabFileError(this.where.file, pos, `${name} runs BGP (modules: [bgp]) but has no AS: give it bgp: {as: N}, put it in a group with one (groups: {NAME: {members: [${name}], bgp: {as: N}}}), or give the lab a default bgp: {as: N}`);
    }
    return {
      name,
      pos,
      device: raw.device,
      role: device.role,
      pinnedLoopback,
      loopback: {},
      interfaces: [],
      gateway: {},
      ospf: { area: area !== undefined ? areaText(area) : undefined, cost: raw.ospf?.cost ?? group?.ospf.cost },
      bgp: { as, rr: raw.bgp?.rr ?? group?.bgp.rr ?? false, pos },
    };
  }

  /** One generated `links:` entry: its members (a pinned interface taken now, the others later), kind and settings. */
  private readLink(index: number, byName: Map<string, PlanNode>, used: Map<string, Set<number>>, vlans: Map<string, PlanVlan>, settings: ModuleSettings): Written {
    const value = this.raw.links[index];
    const raw: Raw = Array.isArray(value) ? { ends: value } : value;
    const key = raw.lan ? 'lan' : 'ends';
    const path: YamlPath = Array.isArray(value) ? ['links', index] : ['links', index, key];
    const texts: string[] = raw[key];
    const members: Member[] = texts.map((text, i) => {
      const pos = this.where.at([...path, i]);
      const colon = text.indexOf(':');
      const name = colon < 0 ? text : text.slice(0, colon);
      const node = byName.get(name);
      if (!node) {
        if (this.rawNodes[name] !== undefined) throw new LabFileError(this.where.file, pos, `${name} is not a device node: a link without ports joins device nodes (device: frr or linux); write ${name}:PORT`);
        const known = Object.keys(this.rawNodes);
        throw new LabFileError(this.where.file, pos, `link to unknown node "${name}"; ${known.length ? `nodes: ${known.join(', ')}` : 'the file has no nodes'}`);
      }
      if (texts.slice(0, i).some((t) => t.split(':')[0] === name)) throw new LabFileError(this.where.file, pos, `${name} is on this link twice`);
      let adapter = -1;
      if (colon >= 0) {
        const m = /^(?:eth)?(\d+)$/.exec(text.slice(colon + 1));
        const device = DEVICES[node.device];
        if (!m || Number(m[1]) >= device.interfaces) throw new LabFileError(this.where.file, pos, `bad interface "${text}": a ${node.device} device has eth0-eth${device.interfaces - 1}`);
        adapter = Number(m[1]);
        if (used.get(name)!.has(adapter)) throw new LabFileError(this.where.file, pos, `${name}:eth${adapter} is used twice`);
        used.get(name)!.add(adapter);
      }
      return { node: name, adapter, pos };
    });
    const hasHost = members.some((m) => byName.get(m.node)!.role === 'host');
    const linkPath: YamlPath = ['links', index];
    const ports = raw.vlan !== undefined ? readLinkVlans(raw.vlan, linkPath, members, byName, vlans, this.where, settings.modules) : undefined;
    const kind = key === 'lan' || members.length > 2 || hasHost || ports ? 'lan' : 'p2p';
    if (ports && raw.addresses !== undefined) throw this.where.keyError(linkPath, 'addresses', "addresses: is not for a link with vlan:; a VLAN's subnet is its prefix: in vlans:");
    if (raw.p2p_prefix !== undefined && kind !== 'p2p') throw this.where.keyError(linkPath, 'p2p_prefix', 'p2p_prefix: is for a link between two routers; this one is a LAN (/24)');
    for (const k of ['filters', 'suspend', 'capture']) {
      if (raw[k] !== undefined && ports) throw this.where.keyError(linkPath, k, `${k}: is for a link of two ends; a link with vlan: is ${members.length} links to its switch`);
      if (raw[k] !== undefined && members.length > 2) throw this.where.keyError(linkPath, k, `${k}: is for a link of two ends; a LAN of ${members.length} is ${members.length} links to its switch`);
    }
    const link: PlanLink = {
      index,
      pos: this.where.at(linkPath),
      kind,
      members,
      ospf: { area: raw.ospf?.area !== undefined ? areaText(raw.ospf.area) : undefined, cost: raw.ospf?.cost },
      p2pPrefix: raw.p2p_prefix,
      pinned: raw.addresses ? this.pinned(raw.addresses, members.length, [...linkPath, 'addresses']) : {},
      subnet: {},
    };
    return { link, raw, ...(ports ? { ports } : {}) };
  }

  /** `addresses: [a/31, b/31]`: one per member and family, all in one subnet. */
  private pinned(texts: string[], count: number, path: YamlPath): PlanLink['pinned'] {
    const out: PlanLink['pinned'] = {};
    texts.forEach((text, i) => {
      const p = parsePrefix(text);
      if (!p) throw this.where.error([...path, i], `bad address "${text}": expected address/prefix length, e.g. 198.18.99.0/31`);
      (out[p.family] ??= []).push(p);
    });
    for (const family of [4, 6] as const) {
      const list = out[family];
      if (!list) continue;
      if (list.length !== count) throw this.where.error(path, `${list.length} IPv${family} address${list.length === 1 ? '' : 'es'} for ${count} ends: give one per end, in order`);
      const net = networkOf(list[0]);
      const stray = list.findIndex((p) => p.length !== list[0].length || networkOf(p).value !== net.value);
      if (stray >= 0) throw this.where.error([...path, texts.indexOf(prefixText(list[stray]))], `${prefixText(list[stray])} is not in ${prefixText(net)} with the link's other addresses`);
    }
    return out;
  }

  private freeAdapter(member: Member, node: PlanNode, used: Map<string, Set<number>>): number {
    const taken = used.get(node.name)!;
    const device = DEVICES[node.device];
    for (let adapter = 0; adapter < device.interfaces; adapter++) {
      if (!taken.has(adapter)) {
        taken.add(adapter);
        return adapter;
      }
    }
    throw new LabFileError(this.where.file, member.pos, `${node.name} has no free interface for this link: a ${node.device} device has ${device.interfaces} (eth0-eth${device.interfaces - 1}), all taken`);
  }

  /** An explicit `[R1:eth0, R2:eth0]` link between device nodes gets addresses too. */
  private explicitLink(index: number, link: LinkSpec, byName: Map<string, PlanNode>): PlanLink {
    const members = link.ends.map((e) => ({ node: e.node, adapter: e.adapter, pos: e.pos }));
    const hasHost = members.some((m) => byName.get(m.node)!.role === 'host');
    return { index, pos: link.pos, kind: hasHost ? 'lan' : 'p2p', members, ospf: {}, pinned: {}, subnet: {} };
  }

  /** The switches of LANs and the links the planner makes, in file order. */
  private addTopology(written: Written[], nodes: Map<string, NodeSpec>, links: LinkSpec[], defaultCompute: string): void {
    let lanNumber = 0;
    for (const { link, raw, ports, segments } of written) {
      const end = (m: Member): EndSpec => ({ node: m.node, adapter: m.adapter, port: 0, pos: m.pos });
      if (link.members.length === 2 && !ports) {
        links.push({ ends: [end(link.members[0]), end(link.members[1])], filters: raw.filters ? this.helpers.gns3Filters(raw.filters) : {}, suspend: raw.suspend ?? false, capture: raw.capture ?? false, pos: link.pos });
        continue;
      }
      let name: string;
      do name = `LAN${++lanNumber}`;
      while (nodes.has(name));
      link.switchName = name;
      for (const s of segments ?? []) s.switchName = name;
      const count = Math.max(8, link.members.length);
      nodes.set(name, {
        name,
        pos: link.pos,
        type: 'ethernet_switch',
        compute: defaultCompute,
        computePos: this.where.at(['defaults', 'compute']),
        switchPorts: ports ? vlanSwitchPorts(ports, count) : Array.from({ length: count }, (_, port) => ({ port, name: `Ethernet${port}`, type: 'access' as const, vlan: 1 })),
      });
      link.members.forEach((m, port) => links.push({ ends: [end(m), { node: name, adapter: 0, port, pos: m.pos }], filters: {}, suspend: false, capture: false, pos: link.pos }));
    }
  }

  /** The device's configuration into the node: startup files, start command, its address for `lab wait`. */
  private configure(spec: NodeSpec, node: PlanNode, plan: LabPlan, used: Set<number>): void {
    const device: Device = DEVICES[node.device];
    const out = device.configure(node, plan);
    spec.adapters = Math.max(0, ...used) + 1;
    spec.cmd = out.cmd;
    spec.files = Object.entries(out.files).map(([path, text]) => ({ path, source: `(generated for ${node.name})`, pos: node.pos, text }));
    const first = node.interfaces.find((i) => i.address[4]);
    if (node.role === 'host' && first) spec.ip = prefixText(first.address[4]!);
  }
}

/** An OSPF area as dotted quad (`0` → `0.0.0.0`). */
function areaText(area: string | number): string {
  if (typeof area === 'string') return area;
  return addressText(4, BigInt(area));
}
