import { Transform, type TransformCallback } from 'node:stream';

/** Counts the bytes of the chunks it is shown (a writer's `onChunk`) and throws `tooLarge()` as soon as they exceed `limit`. */
export class ByteCount {
  /** Bytes counted so far. */
  bytes = 0;

  constructor(private readonly limit: number, private readonly tooLarge: () => Error) {}

  readonly add = (chunk: Buffer): void => {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) throw this.tooLarge();
  };
}

/** A pass-through that counts the bytes going through and fails with `tooLarge()` as soon as they exceed `limit`. */
export class ByteLimit extends Transform {
  private readonly count: ByteCount;

  constructor(limit: number, tooLarge: () => Error) {
    super();
    this.count = new ByteCount(limit, tooLarge);
  }

  /** Bytes let through so far. */
  get bytes(): number {
    return this.count.bytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.count.add(chunk);
    } catch (err) {
      return done(err as Error);
    }
    done(null, chunk);
  }
}
