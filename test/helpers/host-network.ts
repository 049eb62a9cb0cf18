import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The host's whole iptables rule set, without counters and the save's comment lines (which carry a
 * time). The nat table is listed first: iptables-save shows a table only once something loaded it.
 */
export async function firewallRules(): Promise<string> {
  await run('iptables', ['-w', '-t', 'nat', '-n', '-L']);
  const { stdout } = await run('iptables-save');
  return stdout.split('\n').filter((l) => !l.startsWith('#')).map((l) => l.replace(/\[\d+:\d+\]/, '')).join('\n');
}

/** The host's interfaces whose names start with one of `prefixes`, sorted. */
export function linksStartingWith(...prefixes: string[]): string[] {
  return readdirSync('/sys/class/net').filter((n) => prefixes.some((p) => n.startsWith(p))).sort();
}

/** A random /24 in 198.18.0.0/15 (the benchmarking range tests may use) that no host route overlaps. */
export async function freeTestSubnet(): Promise<{ subnet: string; prefix: string }> {
  const { stdout } = await run('ip', ['-4', '-o', 'route', 'show']);
  for (;;) {
    const third = 64 + Math.floor(Math.random() * 190);
    const prefix = `198.18.${third}`;
    if (!stdout.includes(`${prefix}.`)) return { subnet: `${prefix}.0/24`, prefix };
  }
}
