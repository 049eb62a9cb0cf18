import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OperationError } from './errors.js';
import { ZIP_METHOD_ZSTD, zstdDecompressor } from '../util/zstd-stream.js';


/** True when the zip archive at `file` has a member compressed with zstd. */
export async function hasZstdMembers(file: string): Promise<boolean> {
  const yauzl = await import('yauzl');
  const zip = await yauzl.openPromise(file, { autoClose: false });
  try {
    for await (const entry of zip.eachEntry()) if (entry.compressionMethod === ZIP_METHOD_ZSTD) return true;
    return false;
  } finally {
    zip.close();
  }
}

/**
 * Writes to `target` a copy of the zip archive `file` whose zstd members are deflated instead
 * (the entries, names and order unchanged), so that a GNS3 3.x export imports into GNS3 2.2 and
 * the emuctl daemon, which read zip (deflate or stored) only.
 */
export async function rezipWithoutZstd(file: string, target: string): Promise<void> {
  const [yauzl, { ZipFile }] = await Promise.all([import('yauzl'), import('yazl')]);
  const source = await yauzl.openPromise(file, { autoClose: false });
  const out = new ZipFile();
  const written = pipeline(out.outputStream, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  written.catch(() => undefined); // awaited below; a failure before then is reported by the loop
  try {
    for await (const entry of source.eachEntry()) {
      const mtime = entry.getLastModDate();
      if (entry.fileName.endsWith('/')) {
        out.addEmptyDirectory(entry.fileName, { mtime });
        continue;
      }
      let stream: Readable;
      if (entry.compressionMethod === ZIP_METHOD_ZSTD) {
        // The member's bytes as stored: yauzl decodes deflate only.
        const raw = await source.openReadStreamPromise(entry, { decodeFileData: false } as Parameters<typeof source.openReadStreamPromise>[1]);
        const decoder = await zstdDecompressor();
        raw.once('error', (err) => decoder.destroy(err));
        stream = raw.pipe(decoder);
      } else {
        stream = await source.openReadStreamPromise(entry);
      }
      // Streamed, never held whole (a member may inflate to gigabytes): yazl reads each stream in its turn.
      stream.once('error', (err) => (out.outputStream as unknown as Readable).destroy(err));
      out.addReadStream(stream, entry.fileName, { mtime, compress: true });
    }
    out.end();
    await written;
  } catch (err) {
    (out.outputStream as unknown as Readable).destroy();
    throw new OperationError(`cannot read the archive ${file}: ${(err as Error).message}`);
  } finally {
    source.close();
  }
}
