import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { apiPath, type ApiClient, type StreamServer } from './api.js';
import { OperationError } from './errors.js';
import { fileBody, readJson, readText, streamedRequest } from './streamed-http.js';

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

/** A docker image as GET /v2/compute/docker/images lists it (GNS3's shape). */
export interface DockerImageInfo {
  image: string;
}

/**
 * The docker images of a compute (GET /v2/computes/{compute_id}/docker/images); an empty list
 * from a compute that has no docker node type (404), so that QEMU images still list.
 */
export async function listDockerImages(api: ApiClient, computeId: string): Promise<DockerImageInfo[]> {
  try {
    return await api.get<DockerImageInfo[]>(apiPath('computes', computeId, 'docker', 'images'));
  } catch (err) {
    if (err instanceof OperationError && err.status === 404) return [];
    throw err;
  }
}

/**
 * Streams a `docker save` archive to POST /v2/computes/{compute_id}/docker/images (emuctl's
 * docker load), with progress; answers the images it held.
 */
export async function importDockerImages(server: StreamServer, computeId: string, file: string, onProgress?: (bytes: number, total: number) => void): Promise<string[]> {
  const total = (await stat(file)).size;
  const body = fileBody(file, (sent) => onProgress?.(sent, total));
  const response = await streamedRequest(server, 'POST', apiPath('computes', computeId, 'docker', 'images'), { body, length: total });
  const answer = await readJson<{ images?: unknown }>(response);
  if (!Array.isArray(answer.images)) throw new OperationError('the server did not say which images it loaded: does it support docker image import (an emuctl daemon)?');
  return answer.images.map(String);
}
