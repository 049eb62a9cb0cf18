import { join } from 'node:path';
import { NotFoundError } from '../../errors.js';
import { openForRead, relativeBelow, replaceFileUnder } from '../../safe-fs.js';

/**
 * The script VPCS runs at start when given as its last argument (GNS3 keeps it in the node directory):
 * one console command a line, e.g. `set pcname PC1` and `ip 10.0.0.1 255.255.255.0 10.0.0.254`.
 * VPCS's own `save` command writes the same file in its working directory (`ip 10.0.0.1 10.0.0.254 24`).
 */
export const STARTUP_CONFIG_FILE = 'startup.vpc';

/** Path of a node's startup script. */
export function startupConfigPath(nodeDir: string): string {
  return join(nodeDir, STARTUP_CONFIG_FILE);
}

/** The node's startup script, or undefined when it has none; read from the project directory `root` with no link followed (403). */
export async function readStartupConfig(root: string, nodeDir: string): Promise<string | undefined> {
  try {
    const handle = await openForRead(root, relativeBelow(root, startupConfigPath(nodeDir)));
    return await handle.readFile('utf8').finally(() => handle.close());
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** Writes the node's startup script atomically (temp file + fsync + rename), creating the directory (0700); no link followed below `root`. */
export async function writeStartupConfig(root: string, nodeDir: string, script: string): Promise<void> {
  await replaceFileUnder(root, relativeBelow(root, startupConfigPath(nodeDir)), script.endsWith('\n') || script === '' ? script : script + '\n');
}

export { applyStartupSettings, parseStartupConfig, renderStartupConfig, type StartupChange, type StartupSettings } from '../../../util/vpcs-script.js';
