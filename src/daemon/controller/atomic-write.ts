import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Writes a file so that readers (and a crash) only ever see the old or the new content: temp file, fsync, rename, fsync dir. */
export async function writeFileAtomic(path: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  // Only the start of the name: the full one may already be as long as a file name can be.
  const temp = join(dir, `.${basename(path).slice(0, 32)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw err;
  }
  await handle.close();
  await rename(temp, path);
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}
