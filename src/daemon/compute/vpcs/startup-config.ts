import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../atomic-write.js';

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

/** The node's startup script, or undefined when it has none. */
export async function readStartupConfig(nodeDir: string): Promise<string | undefined> {
  try {
    return await readFile(startupConfigPath(nodeDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes the node's startup script atomically (temp file + fsync + rename), creating the directory. */
export async function writeStartupConfig(nodeDir: string, script: string): Promise<void> {
  await mkdir(nodeDir, { recursive: true });
  await writeFileAtomic(startupConfigPath(nodeDir), script.endsWith('\n') || script === '' ? script : script + '\n');
}

export { applyStartupSettings, parseStartupConfig, renderStartupConfig, type StartupChange, type StartupSettings } from '../../../util/vpcs-script.js';
