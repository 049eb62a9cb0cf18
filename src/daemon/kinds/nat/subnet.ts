import { InvalidError } from '../../errors.js';

/** An IPv4 subnet as numbers: the network address and the prefix length. */
export interface Subnet {
  network: number;
  prefix: number;
}

const DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function addressOf(text: string): number | undefined {
  const m = DOTTED.exec(text);
  if (!m) return undefined;
  const bytes = m.slice(1).map(Number);
  if (bytes.some((b) => b > 255)) return undefined;
  return ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
}

export function dotted(address: number): string {
  return [24, 16, 8, 0].map((shift) => (address >>> shift) & 255).join('.');
}

function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

/** `a.b.c.d/N` with N from 8 to 29 (room for a gateway and leases) and no host bits set, or InvalidError naming `where`. */
export function parseSubnet(text: string, where = 'subnet'): Subnet {
  const [addr, len, ...rest] = text.split('/');
  const network = addressOf(addr);
  const prefix = /^\d{1,2}$/.test(len ?? '') ? Number(len) : NaN;
  if (network === undefined || rest.length || !(prefix >= 8 && prefix <= 29)) throw new InvalidError(`${where}: '${text}' is not an IPv4 subnet a.b.c.d/N with N from 8 to 29`);
  if ((network & maskOf(prefix)) >>> 0 !== network) throw new InvalidError(`${where}: '${text}' has host bits set (did you mean ${dotted((network & maskOf(prefix)) >>> 0)}/${prefix}?)`);
  return { network, prefix };
}

/** A route's destination as `ip route` prints it (`default`, `a.b.c.d` or `a.b.c.d/N`); undefined for anything else. */
export function routeSubnet(destination: string): Subnet | undefined {
  if (destination === 'default') return { network: 0, prefix: 0 };
  const [addr, len] = destination.split('/');
  const network = addressOf(addr);
  const prefix = len === undefined ? 32 : Number(len);
  return network === undefined || !(prefix >= 0 && prefix <= 32) ? undefined : { network, prefix };
}

export function overlaps(a: Subnet, b: Subnet): boolean {
  const mask = maskOf(Math.min(a.prefix, b.prefix));
  return ((a.network & mask) >>> 0) === ((b.network & mask) >>> 0);
}

export function subnetText(s: Subnet): string {
  return `${dotted(s.network)}/${s.prefix}`;
}

/** The addresses a NAT subnet is split into: the gateway (first host), the DHCP range (the rest but the broadcast), the netmask. */
export function natAddresses(s: Subnet): { gateway: string; firstLease: string; lastLease: string; netmask: string } {
  const broadcast = (s.network | ~maskOf(s.prefix)) >>> 0;
  return { gateway: dotted(s.network + 1), firstLease: dotted(s.network + 2), lastLease: dotted(broadcast - 1), netmask: dotted(maskOf(s.prefix)) };
}
