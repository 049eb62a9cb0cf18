import type { ApiClient } from './api.js';

/** GET /v2/version answer. */
export interface ServerVersion {
  /** The GNS3 API version (an emuctl daemon reports the GNS3 release it follows, `2.2.N`). */
  version: string;
  local?: boolean;
  /** emuctl's own version, when the server is an emuctl daemon. */
  emuctl_version?: string;
}

/** The server's version (GET /v2/version). */
export function getServerVersion(api: ApiClient): Promise<ServerVersion> {
  return api.get<ServerVersion>('version');
}
