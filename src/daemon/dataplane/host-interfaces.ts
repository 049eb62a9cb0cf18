/**
 * Host interfaces the daemon owns, found by a name prefix it alone uses
 * (e.g. "emu" + a short id). A TAP the dataplane creates is non-persistent
 * and dies with its fd, even on kill -9; what this finds are the leftovers
 * made persistent or moved away by other parts (node kinds), for a daemon that
 * restarts to remove.
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { InvalidError } from '../errors.js';
import { checkIfname } from './nio-host.js';

const run = promisify(execFile);
const SYS_NET = '/sys/class/net';

function checkPrefix(prefix: string): string {
  if (prefix.length < 3) throw new InvalidError(`interface prefix must be at least 3 characters (got ${JSON.stringify(prefix)})`);
  return checkIfname(prefix);
}

/** Names of this network namespace's interfaces that start with `prefix`, sorted. */
export async function listInterfaces(prefix: string): Promise<string[]> {
  checkPrefix(prefix);
  return (await readdir(SYS_NET)).filter((name) => name.startsWith(prefix)).sort();
}

/** Deletes every interface starting with `prefix` (`ip link delete`); returns the names removed. */
export async function removeInterfaces(prefix: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await listInterfaces(prefix)) {
    try {
      await run('ip', ['link', 'delete', name]);
      removed.push(name);
    } catch (e) {
      // Gone meanwhile (a non-persistent TAP whose fd just closed) is not a failure.
      if ((await listInterfaces(prefix)).includes(name)) throw e;
    }
  }
  return removed;
}
