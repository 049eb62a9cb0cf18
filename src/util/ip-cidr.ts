// IPv4 and IPv6 addresses and subnets as numbers (bigint, so one set of functions serves both
// families): parsing, overlap, containment and the Nth address. No I/O.
import { isIPv4, isIPv6 } from 'node:net';

export type Family = 4 | 6;

/** A subnet: family, network address as a number, prefix length. */
export interface Cidr {
  family: Family;
  network: bigint;
  prefix: number;
}

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

/** An address as a number, or undefined when it is not one of `family`. */
export function addressValue(text: string, family: Family): bigint | undefined {
  if (family === 4) {
    if (!isIPv4(text)) return undefined;
    return text.split('.').reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
  }
  if (!isIPv6(text) || text.includes('.')) return undefined;
  const [head, tail = ''] = text.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const h = groups(head);
  const t = text.includes('::') ? groups(tail) : [];
  const all = text.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** The address text: dotted quad, or RFC 5952 IPv6 (longest zero run as `::`). */
export function addressText(value: bigint, family: Family): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.len).join(':')}`;
}

function mask(family: Family, prefix: number): bigint {
  const bits = BITS[family];
  return ((1n << BigInt(bits)) - 1n) ^ ((1n << BigInt(bits - prefix)) - 1n);
}

/** `a.b.c.d/N` or `x::/N` with no host bits set; a reason otherwise. */
export function parseCidr(text: string, family: Family): Cidr | string {
  const [addr, len, ...rest] = text.split('/');
  const network = addressValue(addr, family);
  const prefix = /^\d{1,3}$/.test(len ?? '') ? Number(len) : NaN;
  if (network === undefined || rest.length || !(prefix >= 0 && prefix <= BITS[family])) return `'${text}' is not an IPv${family} subnet (address/prefix length)`;
  const net = network & mask(family, prefix);
  if (net !== network) return `'${text}' has host bits set (did you mean ${addressText(net, family)}/${prefix}?)`;
  return { family, network, prefix };
}

export function cidrText(c: Cidr): string {
  return `${addressText(c.network, c.family)}/${c.prefix}`;
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  if (a.family !== b.family) return false;
  const m = mask(a.family, Math.min(a.prefix, b.prefix));
  return (a.network & m) === (b.network & m);
}

/** Whether the address (a number of the subnet's family) lies in the subnet. */
export function cidrContains(c: Cidr, address: bigint): boolean {
  return (address & mask(c.family, c.prefix)) === c.network;
}

/** How many addresses the subnet spans. */
export function cidrSize(c: Cidr): bigint {
  return 1n << BigInt(BITS[c.family] - c.prefix);
}

/** The Nth address of the subnet (0 is the network address). */
export function nthAddress(c: Cidr, n: bigint): bigint {
  return c.network + n;
}
