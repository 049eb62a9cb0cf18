import { createHash } from 'node:crypto';

/** The DNS namespace of RFC 4122. */
export const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

/** RFC 4122 UUID version 3 (MD5) of `name` in `namespace`, as Python's uuid.uuid3(namespace, name): stable ids from names. */
export function uuidV3(namespace: string, name: string): string {
  const hash = createHash('md5').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x30;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
