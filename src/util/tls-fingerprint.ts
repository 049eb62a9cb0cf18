/**
 * SHA-256 certificate fingerprints as emuctl prints and pins them: 32 bytes in upper-case hex
 * separated by colons (`AB:CD:…`, the form `openssl x509 -fingerprint -sha256` and Node print).
 * A leaf module: the CLI checks a flag's value without loading TLS.
 */

/** The fingerprint in its canonical form, from colon-hex or plain hex (any case, an optional `SHA256:` prefix); undefined if it is not one. */
export function parseFingerprint(text: string): string | undefined {
  const hex = text.trim().replace(/^sha-?256\s*(fingerprint)?\s*[:=]?\s*/i, '').replace(/:/g, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return undefined;
  return hex.toUpperCase().match(/../g)!.join(':');
}

/** What a fingerprint must look like, for error messages. */
export const FINGERPRINT_HINT = 'a SHA-256 fingerprint: 64 hex digits, colons between bytes allowed (as the daemon prints it at start)';
