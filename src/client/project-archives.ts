import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { OperationError } from './errors.js';
import type { Project } from './projects.js';
import { apiPath, type StreamServer } from './api.js';
import { fileBody, readJson, streamedRequest } from './streamed-http.js';

/** GNS3's export options (`GET …/export?include_snapshots=yes…`). */
export interface ExportOptions {
  includeSnapshots?: boolean;
  resetMacAddresses?: boolean;
  /** `zip` (deflate, the default) or `none` (stored). */
  compression?: 'zip' | 'none';
}

/**
 * Saves a project's portable archive (GNS3 2.2 `.gns3project`) to `target`, through a temporary
 * file in the same directory renamed into place: a failed download leaves nothing behind.
 */
export async function downloadProjectArchive(server: StreamServer, projectId: string, target: string, opts: ExportOptions = {}, onProgress?: (bytes: number) => void): Promise<number> {
  const query = new URLSearchParams();
  if (opts.includeSnapshots) query.set('include_snapshots', 'yes');
  if (opts.resetMacAddresses) query.set('reset_mac_addresses', 'yes');
  if (opts.compression) query.set('compression', opts.compression);
  const response = await streamedRequest(server, 'GET', `${apiPath('projects', projectId, 'export')}${query.size ? `?${query}` : ''}`);
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.part`);
  let bytes = 0;
  const count = async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of chunks) {
      onProgress?.((bytes += chunk.length));
      yield chunk;
    }
  };
  try {
    await pipeline(response, count, createWriteStream(temp, { flags: 'wx' }));
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    if (err instanceof OperationError) throw err;
    throw new OperationError(`cannot save the archive to ${target}: ${(err as Error).message}`);
  }
  return (await stat(target)).size;
}

/**
 * Sends an archive file to the server as a new project (`POST …/import`); resolves with the
 * project (closed, as GNS3 leaves it). An archive whose members GNS3 3.x compressed with zstd is
 * sent as is to a v3 server, and re-deflated first (a temporary copy) for a v2 one.
 */
export async function uploadProjectArchive(server: StreamServer, file: string, name?: string, onProgress?: (bytes: number) => void): Promise<Project> {
  await stat(file).catch((err: Error) => {
    throw new OperationError(`cannot read ${file}: ${err.message}`);
  });
  const api = server.session ? await server.session.api() : 'v2';
  const { hasZstdMembers, rezipWithoutZstd } = await import('./zstd-archive.js');
  if (api === 'v3' || !(await hasZstdMembers(file).catch(() => false))) return uploadFile(server, file, name, onProgress);
  const dir = await mkdtemp(join(tmpdir(), 'emuctl-import-'));
  try {
    const copy = join(dir, basename(file));
    await rezipWithoutZstd(file, copy);
    return await uploadFile(server, copy, name, onProgress);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function uploadFile(server: StreamServer, file: string, name: string | undefined, onProgress?: (bytes: number) => void): Promise<Project> {
  const { size } = await stat(file);
  const query = name ? `?${new URLSearchParams({ name })}` : '';
  const response = await streamedRequest(server, 'POST', `${apiPath('projects', randomUUID(), 'import')}${query}`, { body: fileBody(file, onProgress), length: size });
  onProgress?.(size);
  return readJson<Project>(response);
}
