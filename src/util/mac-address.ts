/** The MAC `offset` addresses after `mac` (adapter N gets base + N, as GNS3 numbers them). */
export function macPlus(mac: string, offset: number): string {
  const value = BigInt(`0x${mac.replace(/:/g, '')}`) + BigInt(offset);
  const hex = (value & 0xffffffffffffn).toString(16).padStart(12, '0');
  return hex.match(/../g)!.join(':');
}
