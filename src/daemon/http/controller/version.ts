import type { Router } from 'express';
import { ConflictError } from '../../errors.js';
import { VERSION_SCHEMA } from '../../schemas/version.js';
import { route } from '../route.js';

export const VERSION_ROUTE = '/v2/version';

export interface VersionDeps {
  /** The GNS3 API version reported (`2.2.N`). */
  gns3Version: string;
  /** emuctl's own version. */
  version: string;
  startedAt: Date;
}

/**
 * `GET /v2/version`: the GNS3 version clients check, emuctl's own in `emuctl_version`; `local` is
 * false, as GNS3 says of a server its GUI did not start (a client then never reads the server's files directly). `POST /v2/version`: a client checks its version (409 when it differs, as GNS3).
 */
export function versionRoutes(router: Router, deps: VersionDeps): void {
  route(router, { method: 'get', template: VERSION_ROUTE }, () => ({
    version: deps.gns3Version,
    local: false,
    uptime_seconds: Math.round((Date.now() - deps.startedAt.getTime()) / 1000),
    emuctl_version: deps.version,
  }));
  route(router, { method: 'post', template: VERSION_ROUTE, body: VERSION_SCHEMA }, ({ body }) => {
    if (body.version !== deps.gns3Version) throw new ConflictError(`Client version ${body.version} is not the same as server version ${deps.gns3Version}`);
    return { version: deps.gns3Version };
  });
}
