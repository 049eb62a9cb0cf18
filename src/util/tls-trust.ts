import { createRequire } from 'node:module';
import type { Agent, AgentOptions } from 'node:https';
import type { TLSSocket } from 'node:tls';

// node:https (and with it tls and crypto) is required on first use, not imported: the CLI reads
// this module for every command (its error mapping), and a plain-http command must not load TLS.
const requireBuiltin = createRequire(import.meta.url);
const https = (): typeof import('node:https') => requireBuiltin('node:https');

/**
 * How a TLS server's certificate is trusted: by default the system CAs; `ca` replaces them with a
 * bundle (PEM); `fingerprint` (canonical, see tls-fingerprint.ts) pins the leaf certificate instead of
 * checking its chain and name, as ssh pins a host key.
 */
export interface TlsTrust {
  ca?: string | Buffer;
  fingerprint?: string;
}

/** The server's certificate is not the pinned one. */
export class FingerprintMismatchError extends Error {
  readonly code = 'ERR_EMUCTL_FINGERPRINT_MISMATCH';
}

/**
 * An https Agent that verifies servers as `trust` says. With a pin, the chain check is off and the
 * leaf's SHA-256 is compared on `secureConnect`: Node writes nothing of the request (headers with
 * credentials included) before that event's listeners have run, so a mismatch sends no byte.
 */
export function trustAgent(trust: TlsTrust, options: AgentOptions = {}): Agent {
  if (trust.fingerprint) return new (pinnedAgentClass())(trust.fingerprint, { ...options, maxCachedSessions: 0 });
  return new (https().Agent)(trust.ca ? { ...options, ca: trust.ca } : options);
}

type PinnedAgentClass = new (pin: string, options: AgentOptions) => Agent;
let pinnedAgent: PinnedAgentClass | undefined;

function pinnedAgentClass(): PinnedAgentClass {
  const { Agent: HttpsAgent } = https();
  return (pinnedAgent ??= class PinnedAgent extends HttpsAgent {
    constructor(private readonly pin: string, options: AgentOptions) {
      super(options);
    }

    override createConnection(options: object, callback?: unknown): TLSSocket {
      // The chain and name checks are off for this socket only: the pin replaces them.
      const create = HttpsAgent.prototype.createConnection as (this: Agent, o: object, c?: unknown) => TLSSocket;
      const socket = create.call(this, { ...options, rejectUnauthorized: false, checkServerIdentity: () => undefined }, callback);
      socket.once('secureConnect', () => {
        const seen = socket.getPeerCertificate().fingerprint256;
        if (seen !== this.pin) socket.destroy(new FingerprintMismatchError(`the server's certificate has SHA256 fingerprint ${seen ?? '(none)'}, not the pinned ${this.pin}`));
      });
      return socket;
    }
  });
}

/** OpenSSL and Node codes of a certificate that failed verification, in words. */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in an untrusted self-signed CA',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is not signed by a trusted CA',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate is not signed by a trusted CA',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate is not signed by a trusted CA',
  CERT_UNTRUSTED: 'its certificate is not trusted',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  CERT_SIGNATURE_FAILURE: 'its certificate signature is invalid',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another name',
};

/** Why a connection failed certificate verification, in one phrase; undefined when that is not why it failed. */
export function certificateProblem(err: { code?: string; message: string }): string | undefined {
  if (err.code === 'ERR_EMUCTL_FINGERPRINT_MISMATCH') return err.message;
  if (err.code && CERTIFICATE_PROBLEMS[err.code]) return `${CERTIFICATE_PROBLEMS[err.code]} (${err.code})`;
  if (err.code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(err.message)) return 'it does not speak TLS (is it http, not https?)';
  return undefined;
}
