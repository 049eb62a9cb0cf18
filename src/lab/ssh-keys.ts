// A lab's SSH material on the CLI's side: an ed25519 key pair and a known_hosts file, in a
// directory of their own per server and lab, readable by their owner only. The private key is
// never printed; only its path goes into inventories and ssh's arguments.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OperationError } from '../client/errors.js';

const run = promisify(execFile);

/** Where a lab's key pair and known_hosts are. */
export interface LabSshFiles {
  dir: string;
  privateKey: string;
  publicKey: string;
  knownHosts: string;
}

/** The user every inventory and `node ssh` logs in as: the images take the lab's key for root. */
export const LAB_SSH_USER = 'root';

/**
 * The lab's SSH directory below `home`: `labs/<lab>-<hash>`, the hash of the server's URL and the
 * lab's name (two servers may each have a lab of the same name; a name may hold any character).
 */
export function labSshFiles(home: string, serverUrl: string, lab: string): LabSshFiles {
  const hash = createHash('sha256').update(`${serverUrl}\0${lab}`).digest('hex').slice(0, 12);
  const safe = lab.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, 40);
  const dir = join(home, 'labs', `${safe}-${hash}`);
  return { dir, privateKey: join(dir, 'id_ed25519'), publicKey: join(dir, 'id_ed25519.pub'), knownHosts: join(dir, 'known_hosts') };
}

/**
 * Makes the lab's key pair when it has none (ssh-keygen, no passphrase) and returns the public
 * key's text. The directory is 0700 and every file in it 0600, also when an older one was looser.
 */
export async function ensureLabKey(files: LabSshFiles, lab: string): Promise<string> {
  await mkdir(files.dir, { recursive: true, mode: 0o700 });
  await chmod(files.dir, 0o700);
  if (!(await exists(files.privateKey))) {
    try {
      await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `emuctl lab ${lab}`, '-f', files.privateKey], { timeout: 30_000 });
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      throw new OperationError(e.code === 'ENOENT' ? 'cannot make the lab\'s SSH key: ssh-keygen is not installed (Debian package openssh-client)' : `cannot make the lab's SSH key: ${e.stderr?.trim() || e.message}`);
    }
  }
  if (!(await exists(files.knownHosts))) await writeFile(files.knownHosts, '', { mode: 0o600, flag: 'a' });
  for (const file of [files.privateKey, files.publicKey, files.knownHosts]) await chmod(file, 0o600);
  return (await readFile(files.publicKey, 'utf8')).trim();
}

/** The lab's key files, which must exist already (`lab up` with `mgmt.ssh` made them). */
export async function existingLabKey(files: LabSshFiles, lab: string): Promise<LabSshFiles> {
  if (!(await exists(files.privateKey))) throw new OperationError(`lab ${lab} has no SSH key on this machine: run emuctl lab up with mgmt (ssh on) from here first`);
  return files;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/**
 * Drops the lines of the lab's known_hosts that name one of `addresses`: a node made again has a
 * new host key at the same address, which accept-new would refuse. Every address when `addresses`
 * is 'all' (the lab's project was deleted). Names are plain (ssh runs with HashKnownHosts=no).
 */
export async function forgetHostKeys(files: Pick<LabSshFiles, 'knownHosts'>, addresses: readonly string[] | 'all'): Promise<void> {
  let text: string;
  try {
    text = await readFile(files.knownHosts, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const gone = addresses === 'all' ? undefined : new Set(addresses.flatMap((a) => [a, `[${a}]:22`]));
  const kept = text.split('\n').filter((line) => line.trim() && gone !== undefined && !line.split(/\s/)[0].split(',').some((name) => gone.has(name)));
  const next = kept.length ? `${kept.join('\n')}\n` : '';
  if (next !== text) await writeFile(files.knownHosts, next, { mode: 0o600 });
}
