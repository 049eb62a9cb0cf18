import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { diskError } from './errors.js';

/** What a file is written from: text, a buffer, chunks written in order, or a stream read to its end. */
export type FileData = string | Buffer | Buffer[] | Readable;

export interface AtomicWriteOptions {
  mode?: number;
  /** Sees each chunk of a stream before it is written; throwing (a size limit) stops the write. */
  onChunk?: (chunk: Buffer) => void;
}

/**
 * Writes a file so that readers (and a crash) only ever see the old or the new content: temp file,
 * fsync, rename, fsync dir. If any step fails the temp file is removed, and a disk problem (full
 * disk, quota, read-only, I/O error) becomes the 507 naming it. A stream source that fails to be
 * written is left drained, not destroyed, so that an HTTP request can still be answered.
 */
export async function writeFileAtomic(path: string, data: FileData, opts: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  // Only the start of the name: the full one may already be as long as a file name can be.
  const temp = join(dir, `.${basename(path).slice(0, 32)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', opts.mode ?? 0o644);
    try {
      if (typeof data === 'string' || Buffer.isBuffer(data)) await handle.writeFile(data);
      else if (Array.isArray(data)) await writeAll(handle, data);
      else await writeStream(handle, data, opts.onChunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw diskError(path, err);
  }
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

/**
 * Copies a stream into the file. The source is piped through a PassThrough rather than consumed
 * directly: when the write fails, the source is unpiped and drained instead of destroyed (which
 * would reset an HTTP request's connection before its 507 or 413 could be sent).
 */
async function writeStream(handle: FileHandle, source: Readable, onChunk?: (chunk: Buffer) => void): Promise<void> {
  const pass = new PassThrough();
  const forwardError = (err: Error) => pass.destroy(err);
  source.once('error', forwardError);
  source.pipe(pass);
  try {
    for await (const chunk of pass as AsyncIterable<Buffer>) {
      onChunk?.(chunk);
      await writeAll(handle, [chunk]);
    }
  } catch (err) {
    source.unpipe(pass);
    // The rest of the source is read and dropped; its late errors (the client going away) have nowhere to go.
    source.on('error', () => {});
    if (!source.destroyed) source.resume();
    throw err;
  } finally {
    source.off('error', forwardError);
  }
}

/** Chunks per writev call (IOV_MAX is 1024 on Linux). */
const WRITEV_CHUNKS = 1024;
