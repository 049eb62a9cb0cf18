// Address arithmetic for generated labs: IPv4 and IPv6 prefixes as BigInt, so one set of
// functions serves both families. Pure; no I/O.

/** A network or an interface address with its prefix length. */
export interface Prefix {
  family: 4 | 6;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
  length: number;
}

const BITS = { 4: 32, 6: 128 } as const;

/** `10.0.0.1/24` or `2001:db8::1/64`, or undefined when it is not one. */
export function parsePrefix(text: string): Prefix | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseAddress(text.slice(0, slash));
  const lengthText = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(lengthText)) return undefined;
  const length = Number(lengthText);
  if (length > BITS[address.family]) return undefined;
  return { ...address, length };
}

/** An address without a length, as a /32 or /128. */
export function parseAddress(text: string): Prefix | undefined {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === undefined ? undefined : { family: 6, value, length: 128 };
  }
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return { family: 4, value: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n), length: 32 };
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** The address text, without the length (IPv6 in RFC 5952 short form). */
export function addressText(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // The longest run of two or more zero groups becomes `::` (the first such run on a tie).
  let best = { start: -1, len: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len && j - i >= 2) best = { start: i, len: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.len).join(':')}`;
}

/** `address/length`. */
export function prefixText(p: Prefix): string {
  return `${addressText(p.family, p.value)}/${p.length}`;
}

/** How many addresses a prefix of this length spans. */
export function blockSize(family: 4 | 6, length: number): bigint {
  return 1n << BigInt(BITS[family] - length);
}

/** The network of a prefix (host bits cleared). */
export function networkOf(p: Prefix): Prefix {
  const size = blockSize(p.family, p.length);
  return { ...p, value: p.value - (p.value % size) };
}

/** Whether two prefixes of one family share an address. */
export function overlaps(a: Prefix, b: Prefix): boolean {
  if (a.family !== b.family) return false;
  const [na, nb] = [networkOf(a), networkOf(b)];
  const endA = na.value + blockSize(a.family, a.length);
  const endB = nb.value + blockSize(b.family, b.length);
  return na.value < endB && nb.value < endA;
}

/** Whether `inner` lies inside `outer`. */
export function contains(outer: Prefix, inner: Prefix): boolean {
  return outer.family === inner.family && outer.length <= inner.length && networkOf({ ...inner, length: outer.length }).value === networkOf(outer).value;
}
