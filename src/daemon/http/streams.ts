import type { Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Sends a stream as the answer (200); a client that goes away ends the stream, never the daemon. */
export async function sendStream(res: Response, stream: Readable, contentType: string, headers: Record<string, string> = {}): Promise<void> {
  res.status(200).setHeader('Content-Type', contentType);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  await pipeline(stream, res).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
  });
}
