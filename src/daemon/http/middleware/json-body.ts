import express, { type Request, type Response, type NextFunction, type RequestHandler } from 'express';
import { InvalidError } from '../../errors.js';

/**
 * Reads the body whatever its Content-Type and parses it as JSON, as GNS3
 * does (`curl -d '{...}'` sends application/x-www-form-urlencoded). An empty
 * body is `{}`. The parsed value lands on `req.jsonBody`.
 */
export function jsonBody(limitBytes: number, streamed: (req: Request) => boolean = () => false): RequestHandler[] {
  const parser = express.raw({ type: () => true, limit: limitBytes });
  // Streamed routes (image uploads, the forward route) read the request themselves.
  const raw = (req: Request, res: Response, next: NextFunction) => (streamed(req) ? next() : parser(req, res, next));
  const parse = (req: Request, _res: Response, next: NextFunction) => {
    if (streamed(req)) return next();
    const buf = req.body as Buffer | undefined;
    const text = Buffer.isBuffer(buf) ? buf.toString('utf8').trim() : '';
    if (!text) {
      (req as Request & { jsonBody?: unknown }).jsonBody = {};
      return next();
    }
    try {
      (req as Request & { jsonBody?: unknown }).jsonBody = JSON.parse(text);
      next();
    } catch (err) {
      next(new InvalidError(`Invalid JSON body: ${(err as Error).message}`));
    }
  };
  return [raw, parse];
}
