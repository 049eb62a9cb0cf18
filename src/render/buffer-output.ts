import { Output, type TextStream } from './output.js';

/** An in-memory stream that remembers what was written. */
export class BufferStream implements TextStream {
  private chunks: string[] = [];
  /** A pretend terminal is 80 columns wide. */
  readonly columns: number | undefined;
  constructor(readonly isTTY = false) {
    this.columns = isTTY ? 80 : undefined;
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  /** Everything written so far. */
  text(): string {
    return this.chunks.join('');
  }
}

/** An Output writing into buffers, for tests; `isTTY` pretends both streams are terminals. */
export class BufferOutput extends Output {
  readonly out: BufferStream;
  readonly err: BufferStream;
  constructor(options: { isTTY?: boolean; env?: NodeJS.ProcessEnv } = {}) {
    const out = new BufferStream(options.isTTY ?? false);
    const err = new BufferStream(options.isTTY ?? false);
    super(out, err, options.env ?? {});
    this.out = out;
    this.err = err;
  }
  /** Texts of the spinners that a terminal would have shown. */
  readonly spinners: string[] = [];
  /** Records the spinner instead of drawing it (ora needs a real terminal). */
  override async spin<T>(text: string, task: () => Promise<T>): Promise<T> {
    if (this.interactive) this.spinners.push(text);
    return task();
  }
  /** What went to stdout. */
  stdoutText(): string {
    return this.out.text();
  }
  /** What went to stderr. */
  stderrText(): string {
    return this.err.text();
  }
}
