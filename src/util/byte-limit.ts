import { Transform, type TransformCallback } from 'node:stream';

/** A pass-through that counts the bytes going through and fails with `tooLarge()` as soon as they exceed `limit`. */
export class ByteLimit extends Transform {
  /** Bytes let through so far. */
  bytes = 0;

  constructor(private readonly limit: number, private readonly tooLarge: () => Error) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return done(this.tooLarge());
    done(null, chunk);
  }
}
