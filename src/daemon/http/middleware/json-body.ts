import express, { type Request, type Response, type NextFunction, type RequestHandler } from 'express';
import { InvalidError } from '../../errors.js';
import { jsonShapeProblem } from '../../schemas/json-shape.js';

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
  const parser = express.raw({ type: () => true, limit: limits.maxBytes });
  // Streamed routes (image uploads, the forward route) read the request themselves: the forward
  // route's JSON is checked against the same limits by the compute it reaches.
  const raw = (req: Request, res: Response, next: NextFunction) => (streamed(req) ? next() : parser(req, res, next));
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
