import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { isPlainCaptureFileName } from '../../util/capture-file-name.js';
import { InvalidError } from '../errors.js';
import { failpoint } from '../failpoints.js';
import { openForRead, relativeBelow } from '../safe-fs.js';

/** The longest file name Linux file systems take, in bytes (NAME_MAX). */
export const MAX_FILE_NAME_BYTES = 255;

declare const checked: unique symbol;
/** A capture file name that checkCaptureFileName let through; only it makes one. */
export type CaptureFileName = string & { readonly [checked]: true };

/**
 * Checks a capture file name once, where it enters (the controller's start_capture, the compute's
 * start_capture route): a file name, never a path, at most MAX_FILE_NAME_BYTES. What is inside trusts it.
 */
export function checkCaptureFileName(name: string): CaptureFileName {
  if (!isPlainCaptureFileName(name)) {
    throw new InvalidError(`capture_file_name '${name.replace(/\0/g, '\\0')}' must be a plain file name (no path separator, '..' or NUL)`);
  }
  const bytes = Buffer.byteLength(name);
  if (bytes > MAX_FILE_NAME_BYTES) throw new InvalidError(`capture_file_name is too long (${bytes} bytes): the limit is ${MAX_FILE_NAME_BYTES} bytes`);
  return name as CaptureFileName;
}

/** The path of a (checked) capture file inside a project's captures directory. */
export function captureFilePath(capturesDir: string, name: CaptureFileName): string {
  return join(capturesDir, name);
}

const POLL_MS = 100;

/** Where the capture a reader follows stands: still written, stopped (its file complete), or replaced by a restart. */
export type CaptureState = 'growing' | 'stopped' | 'replaced';

/**
 * Streams a capture file from its start and keeps following what is appended
 * while it grows; once it stopped, sends the rest and ends. `state` is asked
 * before every read, so a capture restarted into the same (truncated) file
 * never feeds its new bytes to an old reader. Ends too when the reader goes away.
 * The file is reached from `root` with no symbolic link followed.
 */
export async function followFile(root: string, path: string, state: () => Promise<CaptureState>): Promise<Readable> {
  // Opened before the stream is handed out, so a refused file is an error answer, not a cut stream.
  const handle = await openForRead(root, relativeBelow(root, path));
  const out = new PassThrough();
  let closed = false;
  out.on('close', () => (closed = true));
  void (async () => {
    const chunk = Buffer.allocUnsafe(256 * 1024);
    let position = 0;
    try {
      while (!closed) {
        const now = await state();
        if (now === 'replaced') break;
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead > 0) {
          position += bytesRead;
          if (!out.write(Buffer.from(chunk.subarray(0, bytesRead)))) await new Promise((r) => out.once('drain', r).once('close', r));
          failpoint('pcap.follow.after-data');
          continue;
        }
        if (now === 'stopped') break;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      out.end();
    } finally {
      await handle.close();
    }
  })().catch((err) => out.destroy(err));
  return out;
}
