import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { templatePattern } from '../route.js';

/** A page the API serves may run nothing, load nothing and reach nothing: its content is the user's, not the daemon's. */
export const API_CONTENT_SECURITY_POLICY = "sandbox; default-src 'none'; frame-ancestors 'none'";

/**
 * Headers that keep content a client stored (project and node files, images, a remote compute's
 * answers) from running as a page of the daemon's origin, which the request guard trusts:
 * - every answer: `X-Content-Type-Options: nosniff`, so a browser never guesses HTML from bytes;
 * - every API answer (`/v2/...`): a sandboxing Content-Security-Policy (pages elsewhere, such as a
 *   web UI served under /static, keep their own);
 * - downloads of stored files (`downloads`, GET): `Content-Disposition: attachment`, so a browser
 *   sent there by a link saves the file instead of showing it.
 */
export function securityHeaders(downloads: readonly string[]): RequestHandler {
  const patterns = downloads.map(templatePattern);
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.path.startsWith('/v2/')) res.setHeader('Content-Security-Policy', API_CONTENT_SECURITY_POLICY);
    if (req.method === 'GET' && patterns.some((p) => p.test(req.path))) res.setHeader('Content-Disposition', 'attachment');
    next();
  };
}
