import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { apiPath, type ApiClient, type StreamServer } from './api.js';
import { fileBody, readText, streamedRequest } from './streamed-http.js';

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
 * passes the body through to the compute as a stream), with progress; an upload has no overall
 * time limit.
 */
export async function uploadImage(server: StreamServer, computeId: string, file: string, filename: string, onProgress?: (bytes: number, total: number) => void): Promise<void> {
  const total = (await stat(file)).size;
  const body = fileBody(file, (sent) => onProgress?.(sent, total));
  const response = await streamedRequest(server, 'POST', `${apiPath('computes', computeId, 'qemu', 'images')}/${imagePath(filename)}`, { body, length: total });
  await readText(response);
}
