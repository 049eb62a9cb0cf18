// `mgmt:` of a lab file and the nodes' pinned management addresses: what the schema cannot check
// (subnets without host bits, an address inside its subnet, an address pinned twice).
import { addressText, addressValue, cidrContains, parseCidr, type Cidr } from '../util/ip-cidr.js';
import type { Locator } from './locate.js';
import type { MgmtSpec } from './model.js';

/** The management interface's name in a node unless `mgmt.interface` says otherwise. */
export const DEFAULT_MGMT_INTERFACE = 'mgmt0';

interface RawMgmt {
  ipv4?: string;
  ipv6?: string | false;
  interface?: string;
  ssh?: boolean;
  nat?: boolean;
}

/** `mgmt:` with its defaults: ipv4 auto, ipv6 auto, interface mgmt0, ssh on, nat off. */
export function readMgmt(raw: RawMgmt, where: Locator): MgmtSpec {
  const ipv4 = raw.ipv4 ?? 'auto';
  const ipv6 = raw.ipv6 ?? 'auto';
  if (ipv4 !== 'auto') {
    const c = parseCidr(ipv4, 4);
    if (typeof c === 'string') throw where.error(['mgmt', 'ipv4'], `mgmt ipv4: ${c}`);
    if (c.prefix < 8 || c.prefix > 29) throw where.error(['mgmt', 'ipv4'], `mgmt ipv4: '${ipv4}' must have a prefix length from 8 to 29 (room for the gateway and the nodes)`);
  }
  if (ipv6 !== false && ipv6 !== 'auto') {
    const c = parseCidr(ipv6, 6);
    if (typeof c === 'string') throw where.error(['mgmt', 'ipv6'], `mgmt ipv6: ${c}`);
    if (c.prefix < 48 || c.prefix > 120) throw where.error(['mgmt', 'ipv6'], `mgmt ipv6: '${ipv6}' must have a prefix length from 48 to 120`);
  }
  return { ipv4, ipv6, interface: raw.interface ?? DEFAULT_MGMT_INTERFACE, ssh: raw.ssh ?? true, nat: raw.nat ?? false, pos: where.at(['mgmt']) };
}

/** Pinned addresses need `mgmt:`, must be addresses of its subnets (when given), and each is pinned once. */
export function checkMgmtAddresses(mgmt: MgmtSpec | undefined, nodes: Record<string, { mgmt_ip?: string; mgmt_ipv6?: string }>, where: Locator): void {
  const seen = new Map<string, string>();
  for (const [name, node] of Object.entries(nodes)) {
    for (const [key, family, subnet] of [['mgmt_ip', 4, mgmt?.ipv4], ['mgmt_ipv6', 6, mgmt?.ipv6]] as const) {
      const text = node[key];
      if (text === undefined) continue;
      const path = ['nodes', name, key];
      if (!mgmt) throw where.keyError(['nodes', name], key, `${key}: needs a management network: add mgmt: {} at the top of the file`);
      if (subnet === false) throw where.keyError(['nodes', name], key, `${key}: the management network has no IPv6 (mgmt ipv6: false)`);
      const value = addressValue(text, family);
      if (value === undefined) throw where.error(path, `${key}: '${text}' is not an IPv${family} address`);
      if (subnet !== undefined && subnet !== 'auto') {
        const cidr = parseCidr(subnet, family) as Cidr;
        if (!cidrContains(cidr, value)) throw where.error(path, `${key}: ${text} is not in the management subnet ${subnet}`);
      }
      const canonical = `${family}/${addressText(value, family)}`;
      const first = seen.get(canonical);
      if (first) throw where.error(path, `${key}: ${text} is pinned twice (also by ${first})`);
      seen.set(canonical, name);
    }
  }
}
