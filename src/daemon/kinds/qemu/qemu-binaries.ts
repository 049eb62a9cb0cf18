import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { ConflictError, InvalidError } from '../../errors.js';
import { findExecutable, findExecutables } from '../../../util/which.js';
import { childEnvironment } from '../../compute/process/launch.js';

const run = promisify(execFile);

/** The Debian package that ships qemu-system-<platform>. */
export function qemuPackageFor(platform: string): string {
  if (platform === 'x86_64' || platform === 'i386') return 'qemu-system-x86';
  if (platform === 'arm' || platform === 'aarch64') return 'qemu-system-arm';
  if (platform.startsWith('mips')) return 'qemu-system-mips';
  if (platform.startsWith('ppc')) return 'qemu-system-ppc';
  if (platform.startsWith('sparc')) return 'qemu-system-sparc';
  if (platform === 's390x') return 'qemu-system-s390x';
  return 'qemu-system-misc';
}

/** The platform a qemu binary emulates, from its name (qemu-system-x86_64 → x86_64). */
export function platformOf(qemuPath: string): string | undefined {
  return /^qemu-system-([\w-]+?)(\.exe)?$/.exec(basename(qemuPath))?.[1];
}

/**
 * The qemu executable a node runs: its `qemu_path` (a qemu-system-* binary, by name on PATH or by
 * absolute path), else qemu-system-<platform> on PATH. Missing → 409 naming the package to install.
 */
export function resolveQemuBinary(platform: string, qemuPath: string | null | undefined, env: NodeJS.ProcessEnv): string {
  const wanted = qemuPath || `qemu-system-${platform}`;
  if (!platformOf(wanted)) throw new InvalidError(`qemu_path '${wanted}' is not a qemu-system-* executable`);
  // Always the binary of that name on PATH: a path is only accepted as another name of it, so a
  // qemu_path cannot run a program that a project or an archive brought along.
  const found = findExecutable(basename(wanted), env);
  if (found && wanted.includes('/') && existsSync(wanted) && realpathSync(wanted) !== realpathSync(found)) {
    throw new InvalidError(`qemu_path '${wanted}' is not the ${basename(wanted)} on this compute's PATH (${found}): give its name`);
  }
  if (found) return found;
  const pkg = qemuPackageFor(platformOf(wanted)!);
  throw new ConflictError(`QEMU binary '${wanted}' not found on this compute: install it with \`sudo apt-get install ${pkg}\` (Debian package ${pkg})`);
}

/** qemu-img on PATH (a path `given` only as another name of it); missing → 409 naming the package. */
export function resolveQemuImg(env: NodeJS.ProcessEnv, given?: string): string {
  if (given && basename(given) !== 'qemu-img') throw new InvalidError(`qemu_img '${given}' is not a qemu-img executable`);
  const found = findExecutable('qemu-img', env);
  if (found && given?.includes('/') && existsSync(given) && realpathSync(given) !== realpathSync(found)) {
    throw new InvalidError(`qemu_img '${given}' is not the qemu-img on this compute's PATH (${found}): give its name`);
  }
  if (found) return found;
  throw new ConflictError('qemu-img not found on this compute: install it with `sudo apt-get install qemu-utils` (Debian package qemu-utils)');
}

const versions = new Map<string, Promise<string>>();

/** The version a qemu or qemu-img binary reports (`QEMU emulator version 7.2.19 …` → 7.2.19). */
export function binaryVersion(path: string, env: NodeJS.ProcessEnv): Promise<string> {
  let version = versions.get(path);
  if (!version) {
    version = run(path, ['--version'], { env: childEnvironment(env), timeout: 10_000 })
      .then(({ stdout }) => /version\s+(\d+(?:\.\d+)+)/.exec(stdout)?.[1] ?? '')
      .catch(() => '');
    versions.set(path, version);
  }
  return version;
}

/** GNS3's GET /qemu/binaries: every qemu-system-* on PATH with its version, optionally for some platforms. */
export async function listQemuBinaries(env: NodeJS.ProcessEnv, archs?: string[]): Promise<{ path: string; version: string }[]> {
  const paths = findExecutables(/^qemu-system-[\w-]+$/, env).filter((p) => !archs?.length || archs.includes(platformOf(p) ?? ''));
  return Promise.all(paths.map(async (path) => ({ path, version: await binaryVersion(path, env) })));
}

/** GNS3's GET /qemu/img-binaries. */
export async function listQemuImgBinaries(env: NodeJS.ProcessEnv): Promise<{ path: string; version: string }[]> {
  const path = findExecutable('qemu-img', env);
  return path ? [{ path, version: await binaryVersion(path, env) }] : [];
}
