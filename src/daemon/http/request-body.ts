import { PassThrough, type Readable } from 'node:stream';
import type { Request, Response } from 'express';

/**
 * The request body as a stream its reader may abandon (a size limit hit, a disk error) without
 * killing the connection: destroying it stops reading the request, and the answer then asks the
 * client to close (`Connection: close`). A client still sending gets that answer rather than a
 * reset, and the rest of its body is never read. A client that goes away mid-body fails the stream.
 */
export function abandonableBody(req: Request, res: Response): Readable {
  const body = new PassThrough();
  const broken = () => {
    if (!req.complete) body.destroy(new Error('the client closed the connection before the end of the body'));
  };
  req.once('error', broken).once('close', broken);
  body.once('close', () => {
    if (req.complete) return;
    req.unpipe(body);
    req.pause();
    closeAfterAnswer(req, res);
  });
  req.pipe(body);
  return body;
}

/** The body size a request declares in Content-Length, or undefined (chunked). */
export function declaredLength(req: Request): number | undefined {
  const declared = Number(req.headers['content-length']);
  return req.headers['content-length'] !== undefined && Number.isFinite(declared) ? declared : undefined;
}

/** When the request body has not been read to its end, asks the client to close the connection after this answer: a refused body is not read on. */
export function closeAfterAnswer(req: Request, res: Response): void {
  if (!req.complete && !res.headersSent) res.setHeader('Connection', 'close');
}
