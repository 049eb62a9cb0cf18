import { constants } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import type { Response, Router } from 'express';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { route } from './route.js';
import { sendStream } from './streams.js';

/** Where GNS3 serves its Web UI, and where `/` sends a browser (302, as GNS3's index handler). */
export const WEB_UI_ROUTE = '/static/web-ui/{filename:.+}';
export const WEB_UI_HOME = '/static/web-ui/bundled';

/** Content types of what a compiled GNS3 Web UI holds; anything else is octet-stream. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript',
  '.mjs': 'application/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
};

/**
 * Serves a GNS3 Web UI release directory read-only at /static/web-ui/, as GNS3 does: a path that
 * names no file gets `index.html` (the UI routes in the browser), a hidden or `..` segment is a 403.
 * Files are read only from inside `root` (a real path): a symlink leading out of it counts as no file.
 */
export function webUiRoutes(router: Router, root: string): void {
  route(router, { method: 'get', template: '/', raw: true }, ({ res }) => res.redirect(302, WEB_UI_HOME));
  route(router, { method: 'get', template: WEB_UI_ROUTE, raw: true }, async ({ params, res }) => {
    const segments = servedSegments(params.filename);
    const file = (await openInside(root, segments)) ?? (await openInside(root, ['index.html']));
    if (!file) throw new NotFoundError('The Web UI directory has no index.html');
    await sendFile(res, file);
  });
}

/** The path segments of a requested file; a hidden or `..` segment (or a backslash, a NUL) is a 403. */
export function servedSegments(filename: string): string[] {
  const segments = filename.split('/').filter((s) => s !== '');
  if (segments.some((s) => s.startsWith('.') || s.includes('\\') || s.includes('\0'))) throw new ForbiddenError(`${filename}: hidden files and '..' are not served`);
  return segments;
}

/** A regular file at `segments` under `root` whose real path stays inside `root`, opened; undefined otherwise. */
export async function openInside(root: string, segments: string[]): Promise<WebUiFile | undefined> {
  const real = await realpath(join(root, ...segments)).catch(() => undefined);
  if (!real || !real.startsWith(root + sep)) return undefined;
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!handle) return undefined;
  const stats = await handle.stat();
  if (stats.isFile()) return { handle, path: real, size: stats.size };
  await handle.close();
  return undefined;
}

export interface WebUiFile {
  handle: FileHandle;
  path: string;
  size: number;
}

/** Sends an opened file with its content type, never cached without a check. */
export async function sendFile(res: Response, file: WebUiFile): Promise<void> {
  res.setHeader('Content-Length', file.size);
  res.setHeader('Cache-Control', 'no-cache');
  await sendStream(res, file.handle.createReadStream(), CONTENT_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream');
}
