import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request, Response, Router } from 'express';
import { ByteCount } from '../../../util/byte-limit.js';
import type { ProjectArchives } from '../../controller/archives.js';
import { overLimit, type Limit } from '../../controller/import-limits.js';
import type { ProjectManager } from '../../controller/projects.js';
import { writeFileAtomic } from '../../atomic-write.js';
import { DomainError, InvalidError } from '../../errors.js';
import { abandonableBody, lingerAfterAnswer, declaredLength } from '../request-body.js';
import { route } from '../route.js';
import { sendStream } from '../streams.js';
import { PROJECT_DUPLICATE_SCHEMA, PROJECT_IMPORT_SCHEMA } from '../../schemas/project-extras.js';
import { validate } from '../../schemas/validation.js';
import { PROJECT_ROUTE } from './projects.js';

export const EXPORT_ROUTE = `${PROJECT_ROUTE}/export`;
export const IMPORT_ROUTE = `${PROJECT_ROUTE}/import`;

/** GNS3's yes/no query flags (`include_snapshots=yes`); `true` is taken too. */
const yes = (value: unknown) => typeof value === 'string' && ['yes', 'true'].includes(value.toLowerCase());
const COMPRESSIONS = ['zip', 'none', 'bzip2', 'lzma'];

/** Portable project archives (GNS3 2.2 `.gns3project`): export, import (raw ZIP body) and duplicate. */
export function archiveRoutes(router: Router, deps: { projects: ProjectManager; archives: ProjectArchives }): void {
  const { projects, archives } = deps;
  route(router, { method: 'get', template: EXPORT_ROUTE, raw: true }, async ({ params, query, res }) => {
    const project = projects.get(params.project_id);
    const compression = (query.compression ?? 'zip').toLowerCase();
    if (!COMPRESSIONS.includes(compression)) throw new InvalidError(`compression must be one of ${COMPRESSIONS.join(', ')}`);
    const stream = await archives.export(project, {
      includeSnapshots: yes(query.include_snapshots),
      resetMacAddresses: yes(query.reset_mac_addresses),
      compress: compression !== 'none',
    });
    await sendStream(res, stream, 'application/gns3project', { 'Content-Disposition': attachment(`${project.name}.gns3project`) });
  });
  route(router, { method: 'post', template: IMPORT_ROUTE, status: 201 }, async ({ params, query, req, res }) => {
    try {
      const opts = validate(PROJECT_IMPORT_SCHEMA, { ...query }, 'query');
      archives.checkImportable(params.project_id);
      const archive = await spoolUpload(req, res, await archives.uploadLimit(tmpdir()));
      try {
        return (await archives.import(params.project_id, archive.file, opts)).toJSON();
      } finally {
        await archive.remove();
      }
    } catch (err) {
      lingerAfterAnswer(req, res);
      throw err;
    }
  });
  route(router, { method: 'post', template: `${PROJECT_ROUTE}/duplicate`, body: PROJECT_DUPLICATE_SCHEMA, status: 201 }, async ({ params, body }) =>
    (await archives.duplicate(projects.get(params.project_id), { name: body.name, path: body.path, resetMacAddresses: body.reset_mac_addresses })).toJSON(),
  );
}

/**
 * Streams the uploaded archive into a temporary directory, counting its bytes: one declared (or
 * found) to be over `limit` is a 413, and a failed or broken-off upload leaves no file behind.
 */
async function spoolUpload(req: Request, res: Response, limit: Limit): Promise<{ file: string; remove: () => Promise<void> }> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit.value) throw overLimit(`The archive upload (${declared} bytes)`, limit);
  const temp = await mkdtemp(join(tmpdir(), 'emuctl-import-'));
  const remove = () => rm(temp, { recursive: true, force: true });
  const file = join(temp, 'project.gns3project');
  try {
    await writeFileAtomic(file, abandonableBody(req, res), { onChunk: new ByteCount(limit.value, () => overLimit('The archive upload', limit)).add });
  } catch (err) {
    await remove();
    // Errors of our own and of the file system (disk full: a 507) stay what they are; anything else is the client going away mid-upload.
    throw err instanceof DomainError || (err as NodeJS.ErrnoException).syscall ? err : new InvalidError(`The archive upload broke off: ${(err as Error).message}`);
  }
  return { file, remove };
}

/** A Content-Disposition for a download: an ASCII file name, and the real one (RFC 6266) when it is not ASCII. */
function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return ascii === fileName ? `attachment; filename="${fileName}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
