// A lab's management network as numbers: which subnet `auto` takes, the gateway, and the address
// each node gets. Pure functions (the host's routes and the other labs' subnets are passed in).
import { createHash } from 'node:crypto';
import { addressText, addressValue, cidrContains, cidrsOverlap, cidrSize, cidrText, parseCidr, type Cidr, type Family } from '../../../util/ip-cidr.js';
import { ConflictError, InvalidError } from '../../errors.js';
import type { ManagementNetwork } from '../../compute/management/types.js';

export type { ManagementNetwork };

/** The prefix length a lab's `auto` subnet gets from the range: /24 (IPv4) and /64 (IPv6), or the range itself when smaller. */
export const AUTO_PREFIX: Record<Family, number> = { 4: 24, 6: 64 };

/** A subnet text checked as a management subnet of `family`; InvalidError naming `where`. */
export function managementSubnet(text: string, family: Family, where: string): Cidr {
  const c = parseCidr(text, family);
  if (typeof c === 'string') throw new InvalidError(`${where}: ${c}`);
  const [min, max] = family === 4 ? [8, 29] : [48, 120];
  if (c.prefix < min || c.prefix > max) throw new InvalidError(`${where}: '${text}' must have a prefix length from ${min} to ${max}`);
  return c;
}

/**
 * The subnet `auto` takes: the first one of the range's /24s (/64s), counted from a place that the
 * lab's name decides, that overlaps nothing in `avoid` (host routes, other labs' networks). The
 * same name gets the same subnet while it is free, so a lab taken down and up again keeps its addresses.
 */
export function chooseSubnet(range: Cidr, seed: string, avoid: readonly Cidr[]): Cidr | undefined {
  const prefix = Math.max(range.prefix, AUTO_PREFIX[range.family]);
  const count = 1n << BigInt(prefix - range.prefix);
  const size = cidrSize({ ...range, prefix });
  const start = BigInt(`0x${createHash('sha256').update(seed).digest('hex').slice(0, 16)}`) % count;
  // At most 65536 tries: a range split finer than that is walked only that far.
  const tries = count < 65536n ? count : 65536n;
  for (let i = 0n; i < tries; i++) {
    const candidate: Cidr = { family: range.family, network: range.network + ((start + i) % count) * size, prefix };
    if (!avoid.some((a) => cidrsOverlap(a, candidate))) return candidate;
  }
  return undefined;
}

/** The gateway (the host's side of the bridge): the subnet's first host address. */
export function gatewayOf(c: Cidr): bigint {
  return c.network + 1n;
}

/** The node addresses of a subnet: from the second host address to the last before the (IPv4) broadcast. */
function hostRange(c: Cidr): { first: bigint; last: bigint } {
  return { first: c.network + 2n, last: c.network + cidrSize(c) - (c.family === 4 ? 2n : 1n) };
}

/** `a.b.c.d/N` of an address in a subnet. */
export function withPrefix(address: bigint, c: Cidr): string {
  return `${addressText(address, c.family)}/${c.prefix}`;
}

/** The lowest node address of the subnet that `used` does not hold; ConflictError when the subnet is full. */
export function nextAddress(c: Cidr, used: ReadonlySet<bigint>): bigint {
  const { first, last } = hostRange(c);
  for (let a = first; a <= last; a++) if (!used.has(a)) return a;
  throw new ConflictError(`the management subnet ${cidrText(c)} has no free address left`);
}

/**
 * A pinned address (`a.b.c.d` or `a.b.c.d/N` with N the subnet's): a node address of the subnet, not
 * the gateway, not taken. InvalidError or ConflictError naming `where` otherwise.
 */
export function pinnedAddress(text: string, c: Cidr, used: ReadonlySet<bigint>, where: string): bigint {
  const [addr, len, ...rest] = text.split('/');
  const value = addressValue(addr, c.family);
  if (value === undefined || rest.length || (len !== undefined && Number(len) !== c.prefix)) throw new InvalidError(`${where}: '${text}' is not an IPv${c.family} address of the management subnet ${cidrText(c)}`);
  const { first, last } = hostRange(c);
  if (!cidrContains(c, value) || value < first || value > last) throw new InvalidError(`${where}: ${addr} is not a node address of the management subnet ${cidrText(c)} (the gateway is ${addressText(gatewayOf(c), c.family)})`);
  if (used.has(value)) throw new ConflictError(`${where}: ${addr} is already another node's management address`);
  return value;
}

/** The address of `a.b.c.d/N` (or a bare address) as a number, if it is one of the family. */
export function addressOf(text: unknown, family: Family): bigint | undefined {
  return typeof text === 'string' ? addressValue(text.split('/')[0], family) : undefined;
}

/** The network's JSON from its subnets, interface name and route out. */
export function networkJSON(v4: Cidr, v6: Cidr | null, iface: string, nat: boolean): ManagementNetwork {
  const side = (c: Cidr) => ({ subnet: cidrText(c), gateway: addressText(gatewayOf(c), c.family) });
  return { ipv4: side(v4), ipv6: v6 ? side(v6) : null, interface: iface, nat };
}
