import { createWriteStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OperationError } from './errors.js';

/** The zip compression method number of Zstandard (APPNOTE 4.4.5), GNS3 3.x's default for exports. */
export const ZIP_ZSTD = 93;

/** True when the zip archive at `file` has a member compressed with zstd. */
export async function hasZstdMembers(file: string): Promise<boolean> {
  const yauzl = await import('yauzl');
  const zip = await yauzl.openPromise(file, { autoClose: false });
  try {
    for await (const entry of zip.eachEntry()) if (entry.compressionMethod === ZIP_ZSTD) return true;
    return false;
  } finally {
    zip.close();
  }
}

/** A stream that decompresses Zstandard frames (fzstd: pure JavaScript). */
async function zstdDecoder(): Promise<Transform> {
  const { Decompress } = await import('fzstd');
  let decoder: InstanceType<typeof Decompress>;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        decoder.push(chunk);
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        decoder.push(new Uint8Array(0), true);
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
  decoder = new Decompress((data) => {
    transform.push(Buffer.from(data));
  });
  return transform;
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
      if (entry.compressionMethod === ZIP_ZSTD) {
        // The member's bytes as stored: yauzl decodes deflate only.
        const raw = await source.openReadStreamPromise(entry, { decodeFileData: false } as Parameters<typeof source.openReadStreamPromise>[1]);
        const decoder = await zstdDecoder();
        raw.once('error', (err) => decoder.destroy(err));
        stream = raw.pipe(decoder);
      } else {
        stream = await source.openReadStreamPromise(entry);
      }
      // The member is read to its end before the next entry is opened: yazl writes entries in order.
      const data: Buffer[] = [];
      for await (const chunk of stream) data.push(chunk as Buffer);
      out.addBuffer(Buffer.concat(data), entry.fileName, { mtime, compress: true });
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
