/** A MAC address as GNS3 writes it: six colon-separated hex pairs (a JSON schema pattern). */
export const MAC_ADDRESS_PATTERN = '^([0-9a-fA-F]{2}[:]){5}([0-9a-fA-F]{2})$';
const MAC_ADDRESS = new RegExp(MAC_ADDRESS_PATTERN);

/** Whether `text` is a MAC address as GNS3 writes it. */
export function isMacAddress(text: string): boolean {
  return MAC_ADDRESS.test(text);
}

/** The MAC `offset` addresses after `mac` (adapter N gets base + N, as GNS3 numbers them). */
export function macPlus(mac: string, offset: number): string {
  const value = BigInt(`0x${mac.replace(/:/g, '')}`) + BigInt(offset);
  const hex = (value & 0xffffffffffffn).toString(16).padStart(12, '0');
  return hex.match(/../g)!.join(':');
}
