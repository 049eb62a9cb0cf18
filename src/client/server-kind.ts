import type { ApiClient } from './api.js';
import { OperationError } from './errors.js';
import { getServerVersion } from './version.js';

/** Whether a server is an emuctl daemon, and how to name it in messages. */
export interface ServerKind {
  emuctl: boolean;
  /** e.g. "an emuctl daemon (emuctl 0.2.0)" or "GNS3 2.2.42". */
  description: string;
}

/**
 * Tells an emuctl daemon from another GNS3 v2 server by its GET /v2/version answer:
 * an emuctl daemon reports `emuctl_version` (and, before it did, `uptime_seconds`,
 * which GNS3 never sends). A server whose version cannot be read is not taken for one.
 */
export async function serverKind(api: ApiClient): Promise<ServerKind> {
  let answer: Record<string, unknown>;
  try {
    answer = (await getServerVersion(api)) as unknown as Record<string, unknown>;
  } catch {
    return { emuctl: false, description: 'a server whose version could not be read' };
  }
  const version = typeof answer.version === 'string' ? answer.version : '?';
  if (typeof answer.emuctl_version === 'string') return { emuctl: true, description: `an emuctl daemon (emuctl ${answer.emuctl_version})` };
  if ('uptime_seconds' in answer) return { emuctl: true, description: `an emuctl daemon (version ${version})` };
  return { emuctl: false, description: `GNS3 ${version}` };
}

/** The one-line failure for a feature only an emuctl daemon has (exit 1); `needs` is e.g. "switch mac-table needs". */
export function notEmuctlError(api: ApiClient, needs: string, kind: ServerKind): OperationError {
  return new OperationError(`${needs} an emuctl daemon; ${api.url} is ${kind.description}`);
}

/**
 * Calls a route only an emuctl daemon has. A 404 from a server that is not one says so
 * in one line instead of the bare 404 (GNS3 answers an unknown route with "404: Not Found").
 */
export async function emuctlOnly<T>(api: ApiClient, needs: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof OperationError) || err.status !== 404) throw err;
    const kind = await serverKind(api);
    if (kind.emuctl) throw err;
    throw notEmuctlError(api, needs, kind);
  }
}
