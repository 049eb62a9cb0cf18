import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { OperationError } from './errors.js';
import type { PcapResponse } from './captures.js';
import { PCAP_GLOBAL_HEADER_LENGTH, PCAP_RECORD_HEADER_LENGTH, PcapStreamParser } from './pcap-stream.js';

/** A snapshot ends once the stream has been quiet this long: the server re-reads a growing file every 100 ms. */
export const IDLE_END_MS = 500;

/** How a download went. */
export interface PcapDownload {
  /** Bytes saved: the global header and whole records only. */
  bytes: number;
  frames: number;
  /** True when the server ended the stream because the capture stopped. */
  captureStopped: boolean;
}

/** Options of downloadPcap. */
export interface DownloadOptions {
  /**
   * Keep following the capture until it stops (or `signal` fires). Otherwise take a snapshot:
   * stop at the first frame captured after the server answered (its Date header, plus a second
   * for its whole-second resolution), or when the stream goes quiet for IDLE_END_MS.
   */
  follow: boolean;
  /** Ctrl-C: ends the download, keeping what arrived. */
  signal?: AbortSignal;
  onProgress?(bytes: number, frames: number): void;
}

/**
 * Saves a pcap stream to `target` through a temporary file in the same directory, renamed into
 * place at the end; on any error the temporary file is removed and nothing is left behind.
 * The saved file is always whole: a record cut off by the end of the stream is dropped.
 */
export async function downloadPcap(response: PcapResponse, target: string, options: DownloadOptions): Promise<PcapDownload> {
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.part`);
  const file = await open(temp, 'wx');
  const parser = new PcapStreamParser();
  const cutoffSeconds = Math.floor((response.serverDate?.getTime() ?? Date.now()) / 1000) + 1;
  let kept = 0;
  let frames = 0;
  let stoppedByUs = false;
  let captureStopped = false;
  let idle: NodeJS.Timeout | undefined;
  const stop = () => {
    stoppedByUs = true;
    response.body.destroy();
  };
  const onAbort = () => stop();
  options.signal?.addEventListener('abort', onAbort);
  try {
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        if (!options.follow) {
          clearTimeout(idle);
          idle = setTimeout(stop, IDLE_END_MS);
        }
        await file.write(chunk);
        const hadHeader = parser.header !== undefined;
        const records = parser.push(chunk);
        if (!hadHeader && parser.header) kept = PCAP_GLOBAL_HEADER_LENGTH;
        let past = false;
        for (const record of records) {
          if (!options.follow && record.seconds >= cutoffSeconds) {
            past = true;
            break;
          }
          kept += PCAP_RECORD_HEADER_LENGTH + record.data.length;
          frames++;
        }
        options.onProgress?.(kept, frames);
        if (past) {
          stoppedByUs = true;
          break;
        }
      }
      captureStopped = !stoppedByUs;
    } catch (err) {
      if (!stoppedByUs) throw new OperationError(`the capture stream broke off: ${(err as Error).message}; nothing was saved`);
    }
    if (!parser.header) throw new OperationError('the capture stream ended before the pcap header; nothing was saved');
    await file.truncate(kept);
    await file.close();
    await rename(temp, target);
    return { bytes: kept, frames, captureStopped };
  } catch (err) {
    await file.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw err;
  } finally {
    clearTimeout(idle);
    options.signal?.removeEventListener('abort', onAbort);
    response.body.destroy();
  }
}

/**
 * Copies a live pcap stream to `dest` (stdout) until the capture stops, `signal` fires, or the
 * reader goes away (EPIPE: `| head`, a tshark that quit), which is a quiet end, not an error.
 * `dest` is not ended. Resolves with the bytes copied and how it ended.
 */
export async function copyPcap(body: Readable, dest: Writable, signal?: AbortSignal): Promise<{ bytes: number; end: 'stopped' | 'closed' | 'interrupted' }> {
  let closed = false;
  let failure: Error | undefined;
  let bytes = 0;
  let wake = () => {};
  const onError = (err: NodeJS.ErrnoException) => {
    closed = true;
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') failure ??= err;
    body.destroy();
    wake();
  };
  // Stays attached: a broken pipe must never become an uncaught 'error'.
  dest.on('error', onError);
  const onAbort = () => body.destroy();
  signal?.addEventListener('abort', onAbort);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (closed) break;
      bytes += chunk.length;
      if (!dest.write(chunk) && !closed) {
        await new Promise<void>((resolve) => {
          wake = () => {
            dest.off('drain', wake);
            resolve();
          };
          dest.on('drain', wake);
        });
      }
    }
  } catch (err) {
    if (!closed && !signal?.aborted) throw new OperationError(`the capture stream broke off: ${(err as Error).message}`);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (failure) throw new OperationError(`cannot write the capture: ${failure.message}`);
  return { bytes, end: closed ? 'closed' : signal?.aborted ? 'interrupted' : 'stopped' };
}
