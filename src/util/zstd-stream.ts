import { Transform } from 'node:stream';
import { ByteCount } from './byte-limit.js';

/** The zip compression method number of Zstandard (APPNOTE 4.4.5), GNS3 3.x's default for exports. */
export const ZIP_METHOD_ZSTD = 93;

/**
 * A stream that decompresses Zstandard frames (fzstd: pure JavaScript, loaded when first needed).
 * It fails with `tooLarge()` as soon as more than `maxBytes` come out, so a small member that
 * inflates without end is stopped at its limit, never held in memory.
 */
export async function zstdDecompressor(maxBytes = Number.POSITIVE_INFINITY, tooLarge: () => Error = () => new Error('zstd data inflates past its limit')): Promise<Transform> {
  const { Decompress } = await import('fzstd');
  const count = new ByteCount(maxBytes, tooLarge);
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
  const decoder = new Decompress((data) => {
    const chunk = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    count.add(chunk);
    transform.push(Buffer.from(chunk));
  });
  return transform;
}
