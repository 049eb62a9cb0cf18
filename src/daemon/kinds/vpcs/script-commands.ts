import { InvalidError } from '../../errors.js';

/**
 * Console commands a VPCS startup script may hold: addressing, names and tests. VPCS 0.5b2 also
 * runs `! command` on the host, reads (`load`) and writes (`save`) any file, opens relays and
 * telnet sessions (`relay`, `rlogin`), and re-points its UDP tunnel (`set lport|rport|rhost`) or
 * dumps frames to files (`set dump`): a script from a client or an archive gets none of those.
 */
const ALLOWED_COMMANDS = new Set(['ip', 'set', 'echo', 'ping', 'sleep', 'dhcp', 'arp', 'clear', 'show', 'trace', 'version', 'help', '?', 'history']);
const ALLOWED_SET = new Set(['pcname', 'echo']);

/** The first line of a VPCS startup script that runs a refused command, or undefined when every line is allowed. */
export function refusedScriptLine(script: string): string | undefined {
  for (const line of script.split(/\r?\n/)) {
    const words = line.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0 || words[0].startsWith('#')) continue;
    if (!ALLOWED_COMMANDS.has(words[0])) return line.trim();
    if (words[0] === 'set' && !ALLOWED_SET.has(words[1] ?? '')) return line.trim();
  }
  return undefined;
}

/** InvalidError (400) naming the first refused line of a startup script. */
export function checkStartupScript(script: string): void {
  const refused = refusedScriptLine(script);
  if (refused !== undefined) throw new InvalidError(`startup_script: '${refused}' is not allowed in a VPCS startup script (allowed: ${[...ALLOWED_COMMANDS].join(', ')}; set ${[...ALLOWED_SET].join('|')})`);
}
