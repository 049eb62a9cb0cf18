/** How an https server's certificate is trusted: the system CAs, else a CA file (PEM), or a pinned SHA-256 fingerprint of the leaf. */
export interface ServerTrust {
  caFile?: string;
  /** Canonical colon-hex (see util/tls-fingerprint.ts). */
  fingerprint?: string;
}
