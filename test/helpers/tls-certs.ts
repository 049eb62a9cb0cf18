import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Certificates made for one test run with openssl: a self-signed one and a CA-signed one, both for 127.0.0.1. */
export interface TestCerts {
  dir: string;
  /** Self-signed certificate (and its key) for IP 127.0.0.1. */
  selfCert: string;
  selfKey: string;
  /** `openssl x509 -fingerprint -sha256` of selfCert: colon-hex, upper case. */
  selfFingerprint: string;
  /** A tiny CA, and a leaf for IP 127.0.0.1 it signed. */
  caCert: string;
  leafCert: string;
  leafKey: string;
  leafFingerprint: string;
  /** A second self-signed certificate: another server's. */
  otherCert: string;
  otherKey: string;
  remove(): void;
}

function openssl(args: string[]): string {
  return execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function fingerprintOf(cert: string): string {
  return openssl(['x509', '-in', cert, '-noout', '-fingerprint', '-sha256']).trim().replace(/^.*=/, '');
}

function selfSigned(dir: string, name: string): [string, string] {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert,
    '-days', '2', '-subj', `/CN=${name}`, '-addext', 'subjectAltName=IP:127.0.0.1']);
  return [cert, key];
}

/** Makes the certificates in a new temp dir (openssl missing is a failure, not a skip). */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-tls-'));
  const [selfCert, selfKey] = selfSigned(dir, 'self');
  const [otherCert, otherKey] = selfSigned(dir, 'other');
  const caCert = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', caKey, '-out', caCert,
    '-days', '2', '-subj', '/CN=emuctl test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
  const leafKey = join(dir, 'leaf.key');
  const csr = join(dir, 'leaf.csr');
  const leafCert = join(dir, 'leaf.crt');
  const ext = join(dir, 'leaf.ext');
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', leafKey, '-out', csr, '-subj', '/CN=127.0.0.1']);
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1\n');
  openssl(['x509', '-req', '-in', csr, '-CA', caCert, '-CAkey', caKey, '-CAcreateserial', '-out', leafCert, '-days', '2', '-extfile', ext]);
  return {
    dir, selfCert, selfKey, selfFingerprint: fingerprintOf(selfCert), caCert, leafCert, leafKey, leafFingerprint: fingerprintOf(leafCert),
    otherCert, otherKey, remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
