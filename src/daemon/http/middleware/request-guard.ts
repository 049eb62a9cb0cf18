import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { ForbiddenError } from '../../errors.js';
import { hostnameOf, parseHost, parseOrigin, type HostPort, type OwnNames } from '../own-names.js';

/** Who may talk to the daemon from a browser, and by which names. */
export interface RequestGuardOptions {
  names: OwnNames;
  /** `cors_origins`: further origins whose pages may call the API, and get CORS headers to read the answers. */
  corsOrigins: readonly string[];
  /** Whether basic auth is on: CORS answers then allow credentials. */
  credentials: boolean;
}

const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'Authorization, Content-Type';
const EXPOSED_HEADERS = 'X-Route';
/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600';

/**
 * Runs before everything else, websocket upgrades and long-polls included (they go through the
 * app too), so that a page on another site cannot drive the daemon:
 * - a `Host` that names none of the daemon's names is refused (DNS rebinding);
 * - an `Origin` that is neither the daemon's own (its scheme, names and port, or the very host the
 *   request was sent to) nor in `cors_origins` is refused (cross-site requests; `null` included);
 * - without `Origin`, a request the browser marks as cross-site (`Sec-Fetch-Site`) is refused unless
 *   it is a top-level GET navigation (a link to the daemon), so `<img>`/`<script>` cannot reach it;
 * - requests with neither (curl, scripts, GNS3 clients) pass untouched.
 * Allowed origins get CORS headers (never `*`); their preflights are answered here.
 */
export function requestGuard(opts: RequestGuardOptions): RequestHandler {
  const { names } = opts;
  const corsOrigins = new Set(opts.corsOrigins.map((o) => parseOrigin(o)?.origin ?? o));
  return (req: Request, res: Response, next: NextFunction) => {
    const hostHeader = req.headers.host;
    // HTTP/1.0 allows no Host; browsers always send one, so its absence is no rebinding.
    const host = hostHeader === undefined ? undefined : parseHost(hostHeader);
    if (hostHeader !== undefined && (!host || !names.hasHost(host.hostname))) {
      return next(new ForbiddenError(`Host '${shown(hostHeader)}' is not a name of this daemon: add it to allowed_hosts (EMUCTL_ALLOWED_HOSTS) to reach the daemon by it`));
    }
    const originHeader = req.headers.origin;
    if (originHeader === undefined) {
      if (crossSiteWithoutOrigin(req)) return next(new ForbiddenError(`Cross-site ${req.method} refused: a page on another site may not call this daemon`));
      return next();
    }
    const origin = parseOrigin(originHeader);
    if (!origin || !(names.hasOrigin(origin) || sameOrigin(origin, host, names.scheme) || corsOrigins.has(origin.origin))) {
      return next(new ForbiddenError(origin ? `Origin '${shown(originHeader)}' is not allowed: add it to cors_origins (EMUCTL_CORS_ORIGINS) to let its pages call this daemon` : `Origin '${shown(originHeader)}' is never allowed (an opaque origin: a sandboxed frame, a file: or data: page)`));
    }
    res.setHeader('Access-Control-Allow-Origin', origin.origin);
    res.vary('Origin');
    if (opts.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      return void res.status(204).end();
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    next();
  };
}

/** The page's origin is the very scheme, host and port the request was sent to (e.g. through an SSH tunnel's port). */
function sameOrigin(origin: URL, host: HostPort | undefined, scheme: string): boolean {
  if (!host || origin.protocol !== `${scheme}:`) return false;
  return hostnameOf(origin) === host.hostname && origin.port === defaultless(host.port, scheme);
}

function defaultless(port: string, scheme: string): string {
  return (scheme === 'http' && port === '80') || (scheme === 'https' && port === '443') ? '' : port;
}

/**
 * Browsers send Origin on every cross-origin request but GETs without CORS (navigations, <img>,
 * <script>, <link>); those carry `Sec-Fetch-Site`. Only a top-level navigation gets through, as a
 * link to the daemon's page would be; no GET route changes state, and a long-poll cannot be held open from an <img>.
 */
function crossSiteWithoutOrigin(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== 'cross-site' && site !== 'same-site') return false;
  const navigation = req.headers['sec-fetch-mode'] === 'navigate' && req.headers['sec-fetch-dest'] === 'document';
  return !(navigation && (req.method === 'GET' || req.method === 'HEAD'));
}

/** A header value as quoted back in a message: bounded, one line. */
function shown(value: string): string {
  const line = value.replace(/[\r\n]/g, ' ');
  return line.length > 100 ? `${line.slice(0, 100)}…` : line;
}
