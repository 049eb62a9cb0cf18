import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../logger.js';

/**
 * One debug line per request once it is answered: method, route template (X-Route) or else the path,
 * status, time taken and client address. Never the query string or a header, so no credential
 * or token a client sends ends up in the log.
 */
export function accessLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let logged = false;
    const done = (upgraded = false) => {
      if (logged) return;
      logged = true;
      log.debug(accessLine(req, res, Number(process.hrtime.bigint() - started) / 1e6, upgraded));
    };
    res.once('finish', () => done());
    res.once('close', () => done());
    // A websocket that a route took over answers no HTTP response: its line comes when the socket closes.
    if (req.headers.upgrade) req.socket.once('close', () => done(!res.writableFinished));
    next();
  };
}

function accessLine(req: Request, res: Response, ms: number, upgraded: boolean): string {
  const route = res.getHeader('X-Route') ?? req.originalUrl.split('?')[0];
  const client = req.socket.remoteAddress ?? 'unknown';
  const status = upgraded ? '101' : String(res.statusCode);
  const note = upgraded ? ' (websocket)' : res.writableFinished ? '' : ' (cut short)';
  return `access: ${req.method} ${String(route)} ${status} ${ms.toFixed(1)} ms from ${client}${note}`;
}
