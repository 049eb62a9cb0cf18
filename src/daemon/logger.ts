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

/** A levelled line logger writing to stderr, or to a file when the daemon is detached. */
export function createLogger(opts: { debug?: boolean; file?: string; quiet?: boolean } = {}): Logger {
  const min = opts.quiet ? ORDER.error : opts.debug ? ORDER.debug : ORDER.info;
  let stream: NodeJS.WritableStream = process.stderr;
  if (opts.file) {
    mkdirSync(dirname(opts.file), { recursive: true });
    stream = createWriteStream(opts.file, { flags: 'a' });
  }
  const write = (level: LogLevel, message: string) => {
    if (ORDER[level] < min) return;
    stream.write(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}\n`);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    close: () =>
      new Promise((resolve) => {
        if (stream === process.stderr) return resolve();
        stream.end(() => resolve());
      }),
  };
}

/** A logger that drops everything (for unit tests). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, close: async () => {} };
