import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { ConflictError } from '../../errors.js';

/** How to get VPCS, for error messages. */
export const VPCS_INSTALL_HINT = 'install it with `sudo apt-get install vpcs` (Debian/Ubuntu package vpcs 0.5b2)';

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path of the VPCS executable: `binary` itself when it names a path, else its first
 * match on PATH. Missing → ConflictError (409) saying how to install it.
 */
export async function resolveVpcsBinary(binary = 'vpcs', env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (binary.includes('/')) {
    const path = isAbsolute(binary) ? binary : join(process.cwd(), binary);
    if (await isExecutable(path)) return path;
    throw new ConflictError(`VPCS executable not found at ${path}: ${VPCS_INSTALL_HINT}`);
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && (await isExecutable(join(dir, binary)))) return join(dir, binary);
  }
  throw new ConflictError(`VPCS is not installed ('${binary}' is not on PATH): ${VPCS_INSTALL_HINT}`);
}
