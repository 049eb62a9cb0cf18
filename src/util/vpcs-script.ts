// VPCS startup scripts (`startup.vpc`): one console command a line. Pure text functions, shared by
// the compute (which writes the file) and the lab planner (which reads and changes it over the API).

/** An `ip` line that sets the IPv4 address (not `ip dhcp`, `ip dns …`, `ip mtu …` or IPv6). */
const IPV4_ADDRESS_LINE = /^\s*ip\s+\d+\.\d+\.\d+\.\d+(\/|\s|$)/;

/** The settings a startup script carries that emuctl manages. */
export interface StartupSettings {
  /** VPCS name (`set pcname`); also its console prompt. */
  name?: string;
  /** IPv4 address with prefix length, e.g. `10.0.0.1/24`. */
  ip?: string;
  gateway?: string;
  /** DNS server (`ip dns A.B.C.D`). */
  dns?: string;
}

/** An `ip dns` line. */
const DNS_LINE = /^\s*ip\s+dns\b/;

/** Renders a startup script from settings: `set pcname NAME`, `ip ADDR/LEN [GATEWAY]`, `ip dns DNS`. */
export function renderStartupConfig(settings: StartupSettings): string {
  return applyStartupSettings('', settings);
}

/**
 * Returns `script` with its `set pcname`, `ip` and/or `ip dns` lines replaced (or added) for the settings given,
 * keeping every other line, as GNS3 rewrites the pcname line when a VPCS node is renamed.
 */
export function applyStartupSettings(script: string, settings: StartupChange): string {
  let lines = script.split(/\r?\n/).filter((line, i, all) => line !== '' || i < all.length - 1);
  if (settings.name !== undefined) {
    if (/\s/.test(settings.name) || settings.name === '') {
      throw new RangeError(`VPCS name must be one word: ${JSON.stringify(settings.name)}`);
    }
    lines = upsert(lines, /^\s*set\s+pcname\b/, `set pcname ${settings.name}`, true);
  }
  if (settings.ip === null) lines = lines.filter((line) => !IPV4_ADDRESS_LINE.test(line));
  if (settings.dns === null) lines = lines.filter((line) => !DNS_LINE.test(line));
  if (typeof settings.ip === 'string') {
    const command = `ip ${settings.ip}${settings.gateway ? ` ${settings.gateway}` : ''}`;
    lines = upsert(lines, IPV4_ADDRESS_LINE, command, false);
  }
  if (typeof settings.dns === 'string') lines = upsert(lines, DNS_LINE, `ip dns ${settings.dns}`, false);
  return lines.length ? lines.join('\n') + '\n' : '';
}

/** Reads back the settings of a startup script (the last `set pcname`, `ip` and `ip dns` lines win). */
export function parseStartupConfig(script: string): StartupSettings {
  const settings: StartupSettings = {};
  for (const line of script.split(/\r?\n/)) {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'set' && words[1] === 'pcname' && words[2]) settings.name = words[2];
    if (IPV4_ADDRESS_LINE.test(line)) Object.assign(settings, parseIpCommand(words.slice(1)));
    if (DNS_LINE.test(line) && words[2]) settings.dns = words[2];
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

/** Changes to a script: like StartupSettings, where null removes the `ip` or `ip dns` line. */
export type StartupChange = Omit<StartupSettings, 'ip' | 'dns'> & { ip?: string | null; dns?: string | null };
