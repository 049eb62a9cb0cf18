import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { TooManyRequestsError, UnauthorizedError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { LoginFailures, type LoginBackoff } from './login-failures.js';

/** How long at most a slowed failure's answer is held back. */
const MAX_HOLD_MS = 5000;
/** Failures' answers held back at once, at most (beyond, they are answered without delay). */
const MAX_HELD = 256;

/**
 * HTTP basic auth on every route; 401 with `WWW-Authenticate: Basic realm="emuctl"` without valid
 * credentials. Valid credentials always pass. Once an address has sent too many wrong passwords,
 * its further wrong ones are answered 429 with Retry-After, held back for the wait (at most MAX_HOLD_MS).
 */
export function basicAuth(credentials: { user: string; password: string }, backoff: LoginBackoff, log: Logger): RequestHandler {
  // Digests have one length whatever was sent, so the comparison takes the same time for every guess.
  const expected = digest(Buffer.from(`${credentials.user}:${credentials.password}`));
  const failures = new LoginFailures(backoff, log);
  let held = 0;
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const m = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header);
    const given = digest(m ? Buffer.from(m[1], 'base64') : Buffer.alloc(0));
    if (m && timingSafeEqual(given, expected)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="emuctl"');
    if (!m) return next(new UnauthorizedError('Authentication required'));
    const client = req.socket.remoteAddress ?? 'unknown';
    const waitMs = failures.waitFor(client);
    failures.failed(client);
    if (waitMs === 0) return next(new UnauthorizedError('Invalid username or password'));
    const seconds = Math.ceil(waitMs / 1000);
    const refusal = new TooManyRequestsError(`Invalid username or password; too many failed logins from ${client}: its failures are slowed for ${seconds} s`, seconds);
    if (held >= MAX_HELD) return next(refusal);
    held++;
    setTimeout(() => {
      held--;
      next(refusal);
    }, Math.min(waitMs, MAX_HOLD_MS));
  };
}

function digest(value: Buffer): Buffer {
  return createHash('sha256').update(value).digest();
}
