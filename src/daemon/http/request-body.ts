import { PassThrough, type Readable } from 'node:stream';
import type { Request, Response } from 'express';

/**
 * The request body as a stream its reader may abandon (a size limit hit, a disk error) without
 * killing the connection: destroying it stops passing the body on, and the rest of it is thrown
 * away once the answer is out (see lingerAfterAnswer). A client that goes away mid-body fails the stream.
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
    lingerAfterAnswer(req, res);
  });
  req.pipe(body);
  return body;
}

/** The body size a request declares in Content-Length, or undefined (chunked). */
export function declaredLength(req: Request): number | undefined {
  const declared = Number(req.headers['content-length']);
  return req.headers['content-length'] !== undefined && Number.isFinite(declared) ? declared : undefined;
}

/**
 * How long the rest of a refused body is still read, and thrown away, after the answer: closing at
 * once, with the client still sending, would reset the connection before it reads the answer
 * (nginx's lingering close). A client still sending after that is cut off.
 */
const LINGER_MS = 5_000;
const lingering = new WeakSet<Request>();

/** When the request body has not been read to its end, reads the rest into nothing once the answer is sent, for LINGER_MS at most. */
export function lingerAfterAnswer(req: Request, res: Response): void {
  if (req.complete || lingering.has(req)) return;
  lingering.add(req);
  res.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket?.destroy(), LINGER_MS).unref();
    req.once('end', () => clearTimeout(timer)).once('close', () => clearTimeout(timer));
    req.resume();
  });
}
