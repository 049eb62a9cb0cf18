import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OperationError, UnreachableError } from './errors.js';
import { apiPath, type ApiClient, type StreamServer } from './api.js';

/** A QEMU image as GET /v2/compute/qemu/images lists it. */
export interface ImageInfo {
  filename: string;
  path: string;
  filesize: number;
  md5sum: string;
}

/** The images of a compute, through the controller (GET /v2/computes/{compute_id}/qemu/images). */
export function listImages(api: ApiClient, computeId: string): Promise<ImageInfo[]> {
  return api.get<ImageInfo[]>(apiPath('computes', computeId, 'qemu', 'images'));
}

/** Deletes an image on a compute (emuctl extension: DELETE /v2/computes/{compute_id}/qemu/images/{filename}). */
export function deleteImage(api: ApiClient, computeId: string, filename: string): Promise<void> {
  return api.delete(`${apiPath('computes', computeId, 'qemu', 'images')}/${imagePath(filename)}`);
}

/** The md5 of a local file, streamed. */
export async function fileMd5(path: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** An image name in a URL: each path segment escaped, the slashes kept. */
function imagePath(filename: string): string {
  return filename.split('/').map(encodeURIComponent).join('/');
}

/**
 * Streams a local file to POST /v2/computes/{compute_id}/qemu/images/{filename} (the controller
 * passes the body through to the compute as a stream). Node's http rather than got: the body is
 * a file stream with progress, and an upload has no overall time limit.
 */
export async function uploadImage(server: StreamServer, computeId: string, file: string, filename: string, onProgress?: (bytes: number, total: number) => void): Promise<void> {
  const base = server.url.replace(/\/+$/, '');
  const url = new URL(`${base}/v2/${apiPath('computes', computeId, 'qemu', 'images')}/${imagePath(filename)}`);
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const total = (await stat(file)).size;
  const headers: Record<string, string | number> = { 'content-type': 'application/octet-stream', 'content-length': total };
  if (server.user !== undefined) headers.authorization = `Basic ${Buffer.from(`${server.user}:${server.password ?? ''}`).toString('base64')}`;
  server.debug?.(`→ POST ${url.toString()} (${total} bytes streamed)`);
  let sent = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      sent += chunk.length;
      onProgress?.(sent, total);
      done(null, chunk);
    },
  });
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false });
    req.once('response', resolve);
    req.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EHOSTUNREACH') reject(new UnreachableError(`cannot reach ${base}: ${err.code === 'ECONNREFUSED' ? 'connection refused' : err.message}`, server.unreachableHint));
      else reject(new OperationError(`upload to ${base} failed: ${err.message}`));
    });
    // An early answer (413, 409) ends the request: the error above or the response carries it.
    pipeline(createReadStream(file), meter, req).catch(() => undefined);
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  server.debug?.(`← ${response.statusCode} POST ${url.pathname}`);
  if ((response.statusCode ?? 500) >= 300) {
    let message = `POST ${url.pathname}: HTTP ${response.statusCode}`;
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message?: unknown };
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // not JSON: keep the status line
    }
    throw new OperationError(message, response.statusCode);
  }
}
