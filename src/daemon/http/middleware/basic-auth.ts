import { timingSafeEqual } from 'node:crypto';
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { UnauthorizedError } from '../../errors.js';

/** HTTP basic auth on every route; 401 with `WWW-Authenticate: Basic realm="emuctl"` without valid credentials. */
export function basicAuth(credentials: { user: string; password: string }): RequestHandler {
  const expected = Buffer.from(`${credentials.user}:${credentials.password}`);
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const given = m ? Buffer.from(m[1], 'base64') : Buffer.alloc(0);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="emuctl"');
    next(new UnauthorizedError(m ? 'Invalid username or password' : 'Authentication required'));
  };
}
