import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that readers (and a crash) only ever see the old or the new content: temp file,
 * fsync, rename, fsync dir. `data` may be a list of chunks, written in order with no copy into one buffer.
 * The file is private (0600) unless `mode` says otherwise; the temporary file is created new (a link
 * planted at its name is never followed) and the rename replaces a link at `path` instead of writing through it.
 */
export async function writeFileAtomic(path: string, data: string | Buffer | Buffer[], mode = 0o600): Promise<void> {
  const dir = dirname(path);
  // Only the start of the name: the full one may already be as long as a file name can be.
  const temp = join(dir, `.${basename(path).slice(0, 32)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.chmod(mode);
    if (Array.isArray(data)) await writeAll(handle, data);
    else await handle.writeFile(data);
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

/** Writes every chunk in order (writev takes part of them at a time; a short write is resumed). */
async function writeAll(handle: FileHandle, chunks: Buffer[]): Promise<void> {
  let pending = chunks.filter((c) => c.length > 0);
  while (pending.length > 0) {
    const batch = pending.slice(0, WRITEV_CHUNKS);
    let { bytesWritten } = await handle.writev(batch);
    let done = 0;
    while (done < batch.length && bytesWritten >= batch[done].length) bytesWritten -= batch[done++].length;
    const rest = pending.slice(done);
    if (bytesWritten > 0) rest[0] = rest[0].subarray(bytesWritten);
    pending = rest;
  }
}

/** Chunks per writev call (IOV_MAX is 1024 on Linux). */
const WRITEV_CHUNKS = 1024;
