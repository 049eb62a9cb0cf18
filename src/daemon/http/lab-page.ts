import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Response, Router } from 'express';
import { NotFoundError } from '../errors.js';
import { route } from './route.js';
import { openInside, sendFile, servedSegments } from './web-ui.js';

/** Where the daemon serves its own lab page (emuctl's, not GNS3's Web UI). */
export const LAB_PAGE_HOME = '/ui/';
export const LAB_PAGE_ROUTE = '/ui/{filename:.+}';

/**
 * The lab page may run only its own bundled script and talk only to its own origin (the API, the
 * notification and console websockets). Styles may be set inline: xterm.js sizes its rows that way.
 */
export const LAB_PAGE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** dist/web, beside dist/src where this module runs from: the package's copy, whatever the working directory. */
function bundleDirectory(): string | undefined {
  try {
    return realpathSync(fileURLToPath(new URL('../../../web', import.meta.url)));
  } catch {
    return undefined;
  }
}

/** GET /ui/ (and /ui: the router is not strict) and its files: the lab page bundled by scripts/bundle-web.mjs, with its own CSP. */
export function labPageRoutes(router: Router, root = bundleDirectory()): void {
  const serve = async (filename: string, res: Response) => {
    if (!root) throw new NotFoundError('The lab page is not built: run npm run build');
    const segments = servedSegments(filename);
    const file = await openInside(root, segments.length ? segments : ['index.html']);
    if (!file) throw new NotFoundError(`The lab page has no ${filename}`);
    res.setHeader('Content-Security-Policy', LAB_PAGE_CONTENT_SECURITY_POLICY);
    await sendFile(res, file);
  };
  route(router, { method: 'get', template: LAB_PAGE_HOME, raw: true }, ({ res }) => serve('', res));
  route(router, { method: 'get', template: LAB_PAGE_ROUTE, raw: true }, ({ params, res }) => serve(params.filename, res));
}
