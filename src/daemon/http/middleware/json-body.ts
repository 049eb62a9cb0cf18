import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { InvalidError, PayloadTooLargeError } from '../../errors.js';
import { jsonShapeProblem } from '../../schemas/json-shape.js';
import { declaredLength, lingerAfterAnswer } from '../request-body.js';

/** What a request body may be: bytes, nesting depth, entries per array or object. */
export interface JsonLimits {
  maxBytes: number;
  maxDepth: number;
  maxItems: number;
}

/**
 * Reads the body whatever its Content-Type and parses it as JSON, as GNS3
 * does (`curl -d '{...}'` sends application/x-www-form-urlencoded). An empty
 * body is `{}`. The parsed value lands on `req.jsonBody`. Bodies beyond the
 * limits are refused here, for every route but the streamed ones, before any handler sees them.
 */
export function jsonBody(limits: JsonLimits, streamed: (req: Request) => boolean = () => false): RequestHandler[] {
  // Streamed routes (image uploads, the forward route) read the request themselves: the forward
  // route's JSON is checked against the same limits by the compute it reaches.
  const raw = (req: Request, res: Response, next: NextFunction) => (streamed(req) ? next() : readLimited(req, res, limits.maxBytes, next));
  const parse = (req: Request, _res: Response, next: NextFunction) => {
    if (streamed(req)) return next();
    const buf = req.body as Buffer | undefined;
    const text = Buffer.isBuffer(buf) ? buf.toString('utf8').trim() : '';
    if (!text) {
      (req as Request & { jsonBody?: unknown }).jsonBody = {};
      return next();
    }
    const problem = jsonShapeProblem(text, limits);
    if (problem) return next(new InvalidError(problem));
    try {
      (req as Request & { jsonBody?: unknown }).jsonBody = JSON.parse(text);
      next();
    } catch (err) {
      next(new InvalidError(`Invalid JSON body: ${(err as Error).message}`));
    }
  };
  return [raw, parse];
}

/**
 * Reads the whole body into `req.body`, at most `maxBytes`. A body declared larger, or a chunked
 * one that grows past the limit, is a 413 at once: the answer does not wait for the rest of the
 * body (body-parser reads a refused body to its end first, so a client that declares 50 MB and
 * sends nothing got a 408 after the request timeout). The rest is thrown away for a while after the
 * answer (lingerAfterAnswer), then the connection is cut.
 */
function readLimited(req: Request, res: Response, maxBytes: number, next: NextFunction): void {
  const tooLarge = () => new PayloadTooLargeError(`Request body is too large (the limit is ${maxBytes} bytes)`);
  // No `Connection: close`: Node would destroy the socket as soon as the answer is out, resetting a
  // client still sending its body before it reads the 413. The rest is drained (lingerAfterAnswer);
  // a client that sends nothing more is cut off when the linger ends.
  const refuse = () => {
    lingerAfterAnswer(req, res);
    next(tooLarge());
  };
  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxBytes) return refuse();
  const chunks: Buffer[] = [];
  let size = 0;
  const stop = () => {
    req.off('data', onData).off('end', onEnd).off('error', onError);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBytes) return void chunks.push(chunk);
    stop();
    refuse();
  };
  const onEnd = () => {
    stop();
    req.body = Buffer.concat(chunks, size);
    next();
  };
  // The client went away mid-body: nobody is left to answer.
  const onError = () => stop();
  req.on('data', onData).once('end', onEnd).once('error', onError);
}
