import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Router } from 'express';
import type { ProjectArchives } from '../../controller/archives.js';
import type { ProjectManager } from '../../controller/projects.js';
import { writeFileAtomic } from '../../atomic-write.js';
import { DomainError, InvalidError } from '../../errors.js';
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
  route(router, { method: 'post', template: IMPORT_ROUTE, status: 201 }, async ({ params, query, req }) => {
    const opts = validate(PROJECT_IMPORT_SCHEMA, { ...query }, 'query');
    const temp = await mkdtemp(join(tmpdir(), 'emuctl-import-'));
    try {
      const archive = join(temp, 'project.gns3project');
      await writeFileAtomic(archive, req).catch((err: NodeJS.ErrnoException) => {
        // A file system error (disk full: a 507) stays what it is; anything else is the client going away mid-upload.
        throw err instanceof DomainError || err.syscall ? err : new InvalidError(`The archive upload broke off: ${err.message}`);
      });
      return (await archives.import(params.project_id, archive, opts)).toJSON();
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  });
  route(router, { method: 'post', template: `${PROJECT_ROUTE}/duplicate`, body: PROJECT_DUPLICATE_SCHEMA, status: 201 }, async ({ params, body }) =>
    (await archives.duplicate(projects.get(params.project_id), { name: body.name, path: body.path, resetMacAddresses: body.reset_mac_addresses })).toJSON(),
  );
}

/** A Content-Disposition for a download: an ASCII file name, and the real one (RFC 6266) when it is not ASCII. */
function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return ascii === fileName ? `attachment; filename="${fileName}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
