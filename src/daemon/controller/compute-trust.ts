import { X509Certificate } from 'node:crypto';
import { parseFingerprint } from '../../util/tls-fingerprint.js';
import { InvalidError } from '../errors.js';

/** What a compute says about its certificate (emuctl's own fields of the compute schema). */
export interface ComputeTrustFields {
  protocol?: 'http' | 'https';
  ca_cert?: string | null;
  fingerprint?: string | null;
}

/**
 * The trust fields checked once, where they enter: one of `ca_cert` (PEM bundle) and `fingerprint`
 * (made colon-hex), for https computes only. The connection code then trusts them as they are.
 */
export function computeTrust(c: ComputeTrustFields): { ca_cert: string | null; fingerprint: string | null } {
  const caCert = c.ca_cert ?? null;
  const fingerprint = c.fingerprint ? parseFingerprint(c.fingerprint) ?? null : null;
  if (!caCert && !fingerprint) return { ca_cert: null, fingerprint: null };
  if ((c.protocol ?? 'http') !== 'https') throw new InvalidError('ca_cert and fingerprint apply to https computes only: set protocol to https');
  if (caCert && fingerprint) throw new InvalidError('give either ca_cert or fingerprint, not both: a pinned fingerprint replaces the CA check');
  if (caCert) {
    try {
      new X509Certificate(caCert);
    } catch {
      throw new InvalidError('ca_cert is not a PEM certificate (-----BEGIN CERTIFICATE----- …)');
    }
  }
  return { ca_cert: caCert, fingerprint };
}
