import { readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runHostTool } from './host-access.js';
import { writeFileAtomic } from '../atomic-write.js';
import { isOwnerAlive, type RegistryOwner } from './process/process-registry.js';

/** Which firewall a chain or rule is in: iptables (4, the default, and every journal written before IPv6 rules) or ip6tables (6). */
export type IpFamily = 4 | 6;

/** One thing a host-side part (the NAT node, a management network) adds to the host, as its undo needs it. */
export type HostChange =
  | { kind: 'link'; name: string }
  | { kind: 'chain'; table: string; name: string; family?: IpFamily }
  | { kind: 'rule'; table: string; chain: string; spec: string[]; family?: IpFamily }
  | { kind: 'sysctl'; path: string; previous: string };

interface JournalFile {
  version: 1;
  owner: RegistryOwner;
  changes: HostChange[];
}

const FILE = /^nat-host\.\d+-\d+\.json$/;

/** Runs iptables, waiting for the xtables lock rather than failing on it. */
export function iptables(table: string, ...args: string[]): Promise<unknown> {
  return runHostTool('iptables', ['-w', '-t', table, ...args]);
}

/** Runs ip6tables the same way. */
export function ip6tables(table: string, ...args: string[]): Promise<unknown> {
  return runHostTool('ip6tables', ['-w', '-t', table, ...args]);
}

/** iptables or ip6tables, by family. */
export function xtables(family: IpFamily | undefined): (table: string, ...args: string[]) => Promise<unknown> {
  return family === 6 ? ip6tables : iptables;
}

/** The name of the family's tool, for messages. */
export function xtablesName(family: IpFamily | undefined): string {
  return family === 6 ? 'ip6tables' : 'iptables';
}

async function succeeds(command: Promise<unknown>): Promise<boolean> {
  return command.then(() => true, () => false);
}

/** Undoes one change; what is already gone (a change recorded but never made) is no failure. */
async function undo(change: HostChange, stillShared: () => Promise<boolean>): Promise<void> {
  switch (change.kind) {
    case 'link':
      if (await succeeds(runHostTool('ip', ['link', 'show', 'dev', change.name]))) await runHostTool('ip', ['link', 'delete', 'dev', change.name]);
      return;
    case 'rule': {
      const tables = xtables(change.family);
      if (await succeeds(tables(change.table, '-C', change.chain, ...change.spec))) await tables(change.table, '-D', change.chain, ...change.spec);
      return;
    }
    case 'chain': {
      const tables = xtables(change.family);
      if (!(await succeeds(tables(change.table, '-n', '-L', change.name)))) return;
      await tables(change.table, '-F', change.name);
      await tables(change.table, '-X', change.name);
      return;
    }
    case 'sysctl':
      // Another emuctl NAT bridge still up on this host needs forwarding on.
      if (!(await stillShared())) await writeFile(change.path, change.previous);
  }
}

/**
 * The record of what one daemon's NAT node (or one management network) added to the host, written before each change is made
 * (like the process intents), so that a daemon restarted after a crash removes exactly what the
 * dead one made, and nothing else.
 */
export class HostChangeJournal {
  private changes: HostChange[] = [];

  constructor(readonly path: string, private readonly owner: RegistryOwner, private readonly stillShared: () => Promise<boolean>) {}

  static fileName(owner: RegistryOwner): string {
    return `nat-host.${owner.pid}-${owner.startTime}.json`;
  }

  /** Records a change about to be made. */
  async record(change: HostChange): Promise<void> {
    this.changes.push(change);
    await writeFileAtomic(this.path, JSON.stringify({ version: 1, owner: this.owner, changes: this.changes } satisfies JournalFile));
  }

  /** Undoes every change, last first, then removes the file. The first failure is thrown once all were tried. */
  async undoAll(): Promise<void> {
    const failures = await undoChanges(this.changes, this.stillShared);
    this.changes = [];
    await unlink(this.path).catch(() => undefined);
    if (failures.length) throw new Error(failures.join('; '));
  }
}

async function undoChanges(changes: HostChange[], stillShared: () => Promise<boolean>): Promise<string[]> {
  const failures: string[] = [];
  for (const change of [...changes].reverse()) {
    await undo(change, stillShared).catch((err: Error) => failures.push(`${describeChange(change)}: ${err.message.split('\n')[0]}`));
  }
  return failures;
}

export function describeChange(change: HostChange): string {
  switch (change.kind) {
    case 'link': return `interface ${change.name}`;
    case 'chain': return `${xtablesName(change.family)} chain ${change.table}/${change.name}`;
    case 'rule': return `${xtablesName(change.family)} rule ${change.table}/${change.chain} ${change.spec.join(' ')}`;
    case 'sysctl': return `${change.path} back to ${change.previous}`;
  }
}

/**
 * On daemon start: undoes the journals of dead daemons in `runDir` whose file name matches `fileName`
 * (the NAT node's by default; a journal whose owner runs is left alone). Returns what was undone; a journal whose undo failed is kept for the next start.
 */
export async function undoDeadJournals(runDir: string, stillShared: () => Promise<boolean>, fileName = FILE): Promise<{ undone: HostChange[]; failures: string[] }> {
  const undone: HostChange[] = [];
  const failures: string[] = [];
  const names = await readdir(runDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => fileName.test(n))) {
    const path = join(runDir, name);
    let file: JournalFile;
    try {
      file = JSON.parse(await readFile(path, 'utf8')) as JournalFile;
    } catch {
      continue;
    }
    if (isOwnerAlive(file.owner)) continue;
    const failed = await undoChanges(file.changes, stillShared);
    if (failed.length) failures.push(...failed);
    else {
      undone.push(...file.changes);
      await unlink(path).catch(() => undefined);
    }
  }
  return { undone, failures };
}
