import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { InvalidError } from './errors.js';

/** The daemon's TLS certificate and key as read at start, with the certificate's SHA-256 fingerprint. */
export interface TlsIdentity {
  cert: Buffer;
  key: Buffer;
  /** Colon-hex, upper case: what clients pin with --fingerprint. */
  fingerprint: string;
}

/** Reads and checks the certificate and key files; one-line InvalidError when a file is missing, not PEM, or the key does not match. */
export async function loadTlsIdentity(certFile: string, keyFile: string): Promise<TlsIdentity> {
  const read = async (file: string, what: string) => {
    try {
      return await readFile(file);
    } catch (err) {
      throw new InvalidError(`cannot read the TLS ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const cert = await read(certFile, 'certificate');
  const key = await read(keyFile, 'key');
  let fingerprint: string;
  try {
    fingerprint = new X509Certificate(cert).fingerprint256;
  } catch {
    throw new InvalidError(`the TLS certificate ${certFile} is not a PEM certificate`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    // OpenSSL's reason only: never the key's bytes.
    const reason = /key values mismatch/i.test((err as Error).message) ? 'it does not belong to the certificate' : 'it is not a PEM private key (or needs a passphrase)';
    throw new InvalidError(`the TLS key ${keyFile} cannot be used: ${reason}`);
  }
  return { cert, key, fingerprint };
}
