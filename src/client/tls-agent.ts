import { readFileSync } from 'node:fs';
import type { Agent, AgentOptions } from 'node:https';
import { trustAgent } from '../util/tls-trust.js';
import type { ServerTrust } from './server-trust.js';
import { UsageError } from './errors.js';

/** The https Agent that verifies the server as `trust` says (system CAs when it says nothing); a CA file that cannot be read is a usage error. */
export function httpsAgentFor(trust: ServerTrust | undefined, options: AgentOptions = {}): Agent {
  const ca = trust?.caFile && !trust.fingerprint ? readCaFile(trust.caFile) : undefined;
  return trustAgent({ ca, fingerprint: trust?.fingerprint }, options);
}

/** The bytes of a CA file; one that cannot be read is a usage error naming it. */
export function readCaFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new UsageError(`cannot read the CA file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
