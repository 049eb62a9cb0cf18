import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { diskError } from './errors.js';

/** What a file is written from: text, a buffer, chunks written in order, or a stream read to its end. */
export type FileData = string | Buffer | Buffer[] | Readable;

export interface AtomicWriteOptions {
  /** The file's mode, set whatever the umask (private, 0600, unless given). */
  mode?: number;
  /** Sees each chunk of a stream before it is written; throwing (a size limit) stops the write. */
  onChunk?: (chunk: Buffer) => void;
}

/**
 * Writes a file so that readers (and a crash) only ever see the old or the new content: temp file,
 * fsync, rename, fsync dir. If any step fails the temp file is removed, and a disk problem (full
 * disk, quota, read-only, I/O error) becomes the 507 naming it. A stream source that fails to be
 * written is left drained, not destroyed, so that an HTTP request can still be answered.
 * The temporary file is created new (a link planted at its name is never followed) and the rename
 * replaces a link at `path` instead of writing through it.
 */
export async function writeFileAtomic(path: string, data: FileData, opts: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  await writeFileAtomicIn((name) => join(dir, name), basename(path), path, data, opts);
}

/**
 * The same write into the directory that `at` names entries of (`at('')` is the directory itself),
 * e.g. one held open by descriptor so that nothing above it is resolved again; `shown` names the file in errors.
 */
export async function writeFileAtomicIn(at: (name: string) => string, name: string, shown: string, data: FileData, opts: AtomicWriteOptions = {}): Promise<void> {
  const mode = opts.mode ?? 0o600;
  // Only the start of the name: the full one may already be as long as a file name can be.
  const temp = `.${name.slice(0, 32)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(at(temp), 'wx', mode);
    try {
      await handle.chmod(mode);
      if (typeof data === 'string' || Buffer.isBuffer(data)) await handle.writeFile(data);
      else if (Array.isArray(data)) await writeAll(handle, data);
      else await writeStream(handle, data, opts.onChunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(at(temp), at(name));
  } catch (err) {
    await unlink(at(temp)).catch(() => {});
    throw diskError(shown, err);
  }
  const dirHandle = await open(at(''), 'r');
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
