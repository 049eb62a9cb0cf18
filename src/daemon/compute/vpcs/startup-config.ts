import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

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
  const target = startupConfigPath(nodeDir);
  const temp = `${target}.${process.pid}.tmp`;
  const file = await open(temp, 'w', 0o644);
  try {
    await file.writeFile(script.endsWith('\n') || script === '' ? script : script + '\n');
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, target).catch(async (err) => {
    await unlink(temp).catch(() => undefined);
    throw err;
  });
}

/** An `ip` line that sets the IPv4 address (not `ip dhcp`, `ip dns …`, `ip mtu …` or IPv6). */
const IPV4_ADDRESS_LINE = /^\s*ip\s+\d+\.\d+\.\d+\.\d+(\/|\s|$)/;

/** The settings a startup script carries that emuctl manages. */
export interface StartupSettings {
  /** VPCS name (`set pcname`); also its console prompt. */
  name?: string;
  /** IPv4 address with prefix length, e.g. `10.0.0.1/24`. */
  ip?: string;
  gateway?: string;
}

/** Renders a startup script from settings: `set pcname NAME` then `ip ADDR/LEN [GATEWAY]`. */
export function renderStartupConfig(settings: StartupSettings): string {
  return applyStartupSettings('', settings);
}

/**
 * Returns `script` with its `set pcname` and/or `ip` line replaced (or added) for the settings given,
 * keeping every other line, as GNS3 rewrites the pcname line when a VPCS node is renamed.
 */
export function applyStartupSettings(script: string, settings: StartupSettings): string {
  let lines = script.split(/\r?\n/).filter((line, i, all) => line !== '' || i < all.length - 1);
  if (settings.name !== undefined) {
    if (/\s/.test(settings.name) || settings.name === '') {
      throw new RangeError(`VPCS name must be one word: ${JSON.stringify(settings.name)}`);
    }
    lines = upsert(lines, /^\s*set\s+pcname\b/, `set pcname ${settings.name}`, true);
  }
  if (settings.ip !== undefined) {
    const command = `ip ${settings.ip}${settings.gateway ? ` ${settings.gateway}` : ''}`;
    lines = upsert(lines, IPV4_ADDRESS_LINE, command, false);
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}

/** Reads back the settings of a startup script (the last `set pcname` and `ip` lines win). */
export function parseStartupConfig(script: string): StartupSettings {
  const settings: StartupSettings = {};
  for (const line of script.split(/\r?\n/)) {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'set' && words[1] === 'pcname' && words[2]) settings.name = words[2];
    if (IPV4_ADDRESS_LINE.test(line)) Object.assign(settings, parseIpCommand(words.slice(1)));
  }
  return settings;
}

/** VPCS accepts `ip A/LEN [GW]`, `ip A MASK [GW]`, `ip A GW LEN` (what `save` writes) and `ip A [GW]`. */
function parseIpCommand(args: string[]): { ip: string; gateway?: string } {
  const [address, second, third] = args;
  if (address.includes('/')) return { ip: address, gateway: second };
  if (second && /^\d+$/.test(second)) return { ip: `${address}/${second}` };
  if (third && /^\d+$/.test(third)) return { ip: `${address}/${third}`, gateway: second };
  if (second && isNetmask(second)) return { ip: `${address}/${prefixLength(second)}`, gateway: third };
  return { ip: `${address}/24`, gateway: second };
}

function isNetmask(text: string): boolean {
  const bits = text.split('.').map((o) => Number(o).toString(2).padStart(8, '0')).join('');
  return /^\d+\.\d+\.\d+\.\d+$/.test(text) && /^1*0*$/.test(bits) && text.startsWith('255.');
}

function prefixLength(mask: string): number {
  return mask.split('.').reduce((n, o) => n + Number(o).toString(2).replace(/0/g, '').length, 0);
}

function upsert(lines: string[], pattern: RegExp, replacement: string, first: boolean): string[] {
  const kept = lines.filter((line) => !pattern.test(line));
  return first ? [replacement, ...kept] : [...kept, replacement];
}
