import { open } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { basename, dirname } from 'node:path';

/** sun_path holds 108 bytes; a longer socket path is reached through its directory's /proc/self/fd entry. */
const SUN_PATH_MAX = 107;

/** Connects to the unix socket at `path`, however long the path. */
export async function connectUnix(path: string): Promise<Socket> {
  const dir = Buffer.byteLength(path) > SUN_PATH_MAX ? await open(dirname(path), 'r') : undefined;
  try {
    const target = dir ? `/proc/self/fd/${dir.fd}/${basename(path)}` : path;
    return await new Promise<Socket>((resolve, reject) => {
      const s = connect(target);
      s.once('connect', () => {
        s.removeListener('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
  } finally {
    await dir?.close();
  }
}
