import express, { type Request, type Response, type NextFunction, type RequestHandler } from 'express';
import { InvalidError } from '../../errors.js';

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

const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d, OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d;

/**
 * Why JSON text is beyond the limits (nesting deeper than maxDepth, an array or object with more than
 * maxItems entries), or undefined. One pass over the text without parsing or recursing, so a hostile
 * body costs no more than its length.
 */
export function jsonShapeProblem(text: string, { maxDepth, maxItems }: Pick<JsonLimits, 'maxDepth' | 'maxItems'>): string | undefined {
  const commas: number[] = [];
  const kinds: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (commas.length === maxDepth) return `JSON body nests deeper than ${maxDepth} levels (the limit)`;
      commas.push(0);
      kinds.push(c);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      commas.pop();
      kinds.pop();
    } else if (c === COMMA && commas.length > 0) {
      const top = commas.length - 1;
      if (++commas[top] >= maxItems) {
        return kinds[top] === OPEN_ARRAY ? `JSON body has an array of more than ${maxItems} items (the limit)` : `JSON body has an object with more than ${maxItems} keys (the limit)`;
      }
    }
  }
  return undefined;
}
