import { resolve } from 'node:path';
import { findExecutable } from '../../../util/which.js';
import { ConflictError } from '../../errors.js';

/** How to get VPCS, for error messages. */
export const VPCS_INSTALL_HINT = 'install it with `sudo apt-get install vpcs` (Debian/Ubuntu package vpcs 0.5b2)';

/**
 * The absolute path of the VPCS executable: `binary` itself when it names a path, else its first
 * match on the PATH of `env` (the daemon's environment). Missing → ConflictError (409) saying how to install it.
 */
export async function resolveVpcsBinary(binary = 'vpcs', env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const path = findExecutable(binary, env);
  if (path) return path;
  if (binary.includes('/')) throw new ConflictError(`VPCS executable not found at ${resolve(binary)}: ${VPCS_INSTALL_HINT}`);
  throw new ConflictError(`VPCS is not installed ('${binary}' is not on PATH): ${VPCS_INSTALL_HINT}`);
}
