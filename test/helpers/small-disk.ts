import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, statSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small tmpfs of its own: a real file system that really runs out of space (ENOSPC). */
export interface SmallDisk {
  /** Where it is mounted. */
  path: string;
  /** Writes a filler file until the disk has no byte left, then gives `leaveBytes` back. */
  fill(leaveBytes?: number): void;
  /** Removes the filler: the disk has room again. */
  free(): void;
  /** Unmounts the disk and removes its mount point (safe to call twice). */
  remove(): void;
}

const FILLER = '.small-disk-filler';
const mounted = new Set<string>();
// A test that dies before its cleanup must not leave mounts behind.
const unmountAll = () => {
  for (const path of mounted) unmount(path);
  mounted.clear();
};
process.once('exit', unmountAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    unmountAll();
    process.exit(1);
  });
}

/** Mounts a tmpfs of `bytes` on a new temporary directory (needs root, as tests here run). */
export function mountSmallDisk(bytes: number, prefix = 'emuctl-small-disk-'): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (err) {
    rmdirSync(path);
    throw new Error(`cannot mount a tmpfs on ${path} (the full-disk tests need root): ${(err as Error).message}`);
  }
  mounted.add(path);
  return {
    path,
    fill: (leaveBytes = 0) => {
      fillUp(join(path, FILLER));
      if (leaveBytes > 0) truncateSync(join(path, FILLER), statSync(join(path, FILLER)).size - leaveBytes);
    },
    free: () => rmSync(join(path, FILLER), { force: true }),
    remove: () => {
      if (!mounted.delete(path)) return;
      unmount(path);
    },
  };
}

/** The name of the filler file, for walks of the disk that should not see it. */
export const SMALL_DISK_FILLER = FILLER;

function fillUp(file: string): void {
  const fd = openSync(file, 'a');
  try {
    // Big blocks first, then single bytes: tmpfs counts pages, so the last page is filled too.
    for (const size of [1 << 20, 4096, 1]) {
      const block = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, block);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

function unmount(path: string): void {
  try {
    execFileSync('umount', [path], { stdio: 'pipe' });
  } catch {
    // Still busy (a process a failed test left): detach it now, the kernel frees it when unused.
    execFileSync('umount', ['-l', path], { stdio: 'pipe' });
  }
  rmSync(path, { recursive: true, force: true });
}
