// The host's routes (main table, both families) as subnets, read from /proc (no tool, no privilege).
import { readFile } from 'node:fs/promises';
import type { Cidr } from './ip-cidr.js';

/** One route: the destination subnet and its device. */
export interface HostRoute {
  destination: Cidr;
  dev: string;
}

function prefixOfMask(mask: number): number {
  let n = 0;
  for (let m = mask >>> 0; m & 0x80000000; m = (m << 1) >>> 0) n++;
  return n;
}

/** IPv4 routes of /proc/net/route (addresses are little-endian hex there). Default routes are left out. */
export function parseIpv4Routes(text: string): HostRoute[] {
  return text.split('\n').slice(1).filter((l) => l.trim()).flatMap((line) => {
    const [dev, dest, , , , , , mask] = line.trim().split(/\s+/);
    const le = (hex: string) => Buffer.from(hex, 'hex').readUInt32LE(0);
    const prefix = prefixOfMask(le(mask));
    if (prefix === 0) return [];
    return [{ dev, destination: { family: 4 as const, network: BigInt(le(dest)), prefix } }];
  });
}

/** IPv6 routes of /proc/net/ipv6_route, less default, link-local and multicast ones. */
export function parseIpv6Routes(text: string): HostRoute[] {
  return text.split('\n').filter((l) => l.trim()).flatMap((line) => {
    const words = line.trim().split(/\s+/);
    const prefix = parseInt(words[1], 16);
    const network = BigInt(`0x${words[0]}`);
    const top = Number(network >> 112n);
    if (prefix === 0 || (top & 0xffc0) === 0xfe80 || (top & 0xff00) === 0xff00 || words[9] === 'lo') return [];
    return [{ dev: words[9], destination: { family: 6 as const, network, prefix } }];
  });
}

/** The host's routes now, both families (a family the kernel lacks gives none). */
export async function hostRoutes(): Promise<HostRoute[]> {
  const read = (path: string) => readFile(path, 'utf8').catch(() => '');
  return [...parseIpv4Routes(await read('/proc/net/route')), ...parseIpv6Routes(await read('/proc/net/ipv6_route'))];
}
