import type { Router } from 'express';
import { route } from '../route.js';

export const VERSION_ROUTE = '/v2/version';

/** `GET /v2/version`: the package version; `local` tells clients this server is a local one. */
export function versionRoutes(router: Router, deps: { version: string; startedAt: Date }): void {
  route(router, { method: 'get', template: VERSION_ROUTE }, () => ({
    version: deps.version,
    local: true,
    uptime_seconds: Math.round((Date.now() - deps.startedAt.getTime()) / 1000),
  }));
}
