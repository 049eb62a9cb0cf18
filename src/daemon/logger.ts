import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  close(): Promise<void>;
}

const guarded = new WeakSet<NodeJS.WritableStream>();
const failed = new WeakSet<NodeJS.WritableStream>();

/**
 * Makes a stream that fails (EPIPE once the reader of a pipe is gone, ENOSPC on a log file) one that
 * is written to no more, instead of an unhandled 'error' event that ends the process.
 */
export function survivable<S extends NodeJS.WritableStream>(stream: S): S {
  if (guarded.has(stream)) return stream;
  guarded.add(stream);
  stream.on('error', () => failed.add(stream));
  return stream;
}

/** Whether writing to the stream can still reach anyone. */
function writable(stream: NodeJS.WritableStream): boolean {
  return !failed.has(stream) && !(stream as NodeJS.WritableStream & { destroyed?: boolean }).destroyed;
}

/**
 * Keeps the daemon alive when its stdout or stderr leads nowhere (the parent that read them died):
 * whatever writes to them (the logger, Node's own warnings) finds them failed, not fatal.
 */
export function survivableStdio(): void {
  survivable(process.stdout);
  survivable(process.stderr);
}

/** A levelled line logger writing to stderr, or to a file when the daemon is detached; a failed stream ends the logging, never the daemon. */
export function createLogger(opts: { debug?: boolean; file?: string; quiet?: boolean } = {}): Logger {
  const min = opts.quiet ? ORDER.error : opts.debug ? ORDER.debug : ORDER.info;
  let stream: NodeJS.WritableStream = process.stderr;
  if (opts.file) {
    mkdirSync(dirname(opts.file), { recursive: true, mode: 0o700 });
    stream = createWriteStream(opts.file, { flags: 'a', mode: 0o600 });
  }
  survivable(stream);
  const write = (level: LogLevel, message: string) => {
    if (ORDER[level] < min || !writable(stream)) return;
    stream.write(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}\n`);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    close: () =>
      new Promise((resolve) => {
        if (stream === process.stderr || !writable(stream)) return resolve();
        stream.end(() => resolve());
      }),
  };
}

/** A logger that drops everything (for unit tests). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, close: async () => {} };
