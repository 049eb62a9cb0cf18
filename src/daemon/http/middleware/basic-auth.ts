import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { TooManyRequestsError, UnauthorizedError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { LoginFailures, type LoginBackoff } from './login-failures.js';

/**
 * HTTP basic auth on every route; 401 with `WWW-Authenticate: Basic realm="emuctl"` without valid
 * credentials. An address that sent too many wrong passwords gets 429 with Retry-After until its wait ends.
 */
export function basicAuth(credentials: { user: string; password: string }, backoff: LoginBackoff, log: Logger): RequestHandler {
  // Digests have one length whatever was sent, so the comparison takes the same time for every guess.
  const expected = digest(Buffer.from(`${credentials.user}:${credentials.password}`));
  const failures = new LoginFailures(backoff, log);
  return (req: Request, res: Response, next: NextFunction) => {
    const client = req.socket.remoteAddress ?? 'unknown';
    const waitMs = failures.waitFor(client);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      return next(new TooManyRequestsError(`Too many failed logins from ${client}: retry in ${seconds} s`, seconds));
    }
    const header = req.headers.authorization ?? '';
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const given = digest(m ? Buffer.from(m[1], 'base64') : Buffer.alloc(0));
    if (m && timingSafeEqual(given, expected)) {
      failures.succeeded(client);
      return next();
    }
    if (m) failures.failed(client);
    res.setHeader('WWW-Authenticate', 'Basic realm="emuctl"');
    next(new UnauthorizedError(m ? 'Invalid username or password' : 'Authentication required'));
  };
}

function digest(value: Buffer): Buffer {
  return createHash('sha256').update(value).digest();
}
