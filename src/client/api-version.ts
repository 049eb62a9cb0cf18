import { UsageError } from './errors.js';

/** The GNS3 HTTP API a server speaks: v2 (GNS3 2.2, the emuctl daemon) or v3 (GNS3 3.x). */
export type ApiVersion = 'v2' | 'v3';

export const API_VERSIONS: readonly ApiVersion[] = ['v2', 'v3'];

/** `--api`/EMUCTL_API/profile text as an ApiVersion; a usage error for anything else. */
export function parseApiVersion(text: string, what = '--api'): ApiVersion {
  const value = text.trim().toLowerCase();
  if (value === 'v2' || value === '2') return 'v2';
  if (value === 'v3' || value === '3') return 'v3';
  throw new UsageError(`${what} must be v2 or v3, not "${text}"`);
}

/** The one line said when a route has no equivalent on the server's API version (exit 2). */
export class NotInApiError extends UsageError {}
