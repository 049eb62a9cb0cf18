import type { ApiClient } from './api.js';

/** GET /v2/version answer. */
export interface ServerVersion {
  version: string;
  local?: boolean;
}

/** The server's version (GET /v2/version). */
export function getServerVersion(api: ApiClient): Promise<ServerVersion> {
  return api.get<ServerVersion>('version');
}
