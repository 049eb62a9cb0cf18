import type { Request, Response, NextFunction, ErrorRequestHandler, Router } from 'express';
import { DomainError, isStoreFull, storageError, TooManyRequestsError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { sendJson } from '../json-response.js';
import { templatesOf } from '../route.js';

/** The one place where errors become HTTP: domain errors keep their status, anything else is a logged 500. */
export function errorMapper(log: Logger): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, message } = toHttp(err);
    // The path without the query string: a client may put a token there, and logs must not hold it.
    const path = req.originalUrl.split('?')[0];
    if (status >= 500 && !(err instanceof DomainError)) log.error(`${req.method} ${path}: ${(err as Error)?.stack ?? String(err)}`);
    else log.debug(`${req.method} ${path} -> ${status} ${message}`);
    if (res.headersSent) return void res.destroy();
    if (err instanceof TooManyRequestsError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
    sendJson(res, status, { message, status });
  };
}

function toHttp(err: unknown): { status: number; message: string } {
  if (err instanceof DomainError) return { status: err.status, message: err.message };
  // A write the domain code did not map is still the disk's problem, not a bug to hide behind a 500 (it is logged).
  if (isStoreFull(err)) return { status: 507, message: storageError((err as NodeJS.ErrnoException).path ?? 'a file', err).message };
  const e = err as { status?: number; statusCode?: number; type?: string; message?: string; limit?: number };
  const status = e?.status ?? e?.statusCode;
  // body-parser errors carry a 4xx status and a type.
  if (e?.type === 'entity.too.large') return { status: 413, message: `Request body is too large (the limit is ${e.limit} bytes)` };
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, message: e.message ?? 'Bad request' };
  return { status: 500, message: 'Internal server error' };
}

/** JSON 404 for unknown URLs, 405 (with Allow) when the URL exists for another method. */
export function notFound(router: Router) {
  return (req: Request, res: Response): void => {
    const allowed = templatesOf(router).filter((t) => t.pattern.test(req.path)).map((t) => t.method.toUpperCase());
    if (allowed.length && !allowed.includes(req.method)) {
      res.setHeader('Allow', [...new Set(allowed)].join(', '));
      sendJson(res, 405, { message: `Method ${req.method} not allowed on ${req.path}`, status: 405 });
      return;
    }
    sendJson(res, 404, { message: `URL not found: ${req.method} ${req.path}`, status: 404 });
  };
}
