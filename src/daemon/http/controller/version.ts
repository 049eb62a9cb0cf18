import type { Router } from 'express';
import { ConflictError } from '../../errors.js';
import { route } from '../route.js';
import { VERSION_CHECK_SCHEMA } from '../../schemas/project.js';

export const VERSION_ROUTE = '/v2/version';

/** `GET /v2/version`: the package version; `local` tells clients this server is a local one. `POST` checks a client's version against it. */
export function versionRoutes(router: Router, deps: { version: string; startedAt: Date }): void {
  route(router, { method: 'get', template: VERSION_ROUTE }, () => ({
    version: deps.version,
    local: true,
    uptime_seconds: Math.round((Date.now() - deps.startedAt.getTime()) / 1000),
  }));
  route<{ version: string }>(router, { method: 'post', template: VERSION_ROUTE, body: VERSION_CHECK_SCHEMA }, ({ body }) => {
    if (body.version !== deps.version) throw new ConflictError(`Client version ${body.version} is not the same as server version ${deps.version}`);
    return { version: deps.version };
  });
}
