import type { ApiClient } from './api.js';
import { NotInApiError } from './api-version.js';

/** Throws the one-line usage error (exit 2) when `api`'s server does not speak v3, for a v3-only feature. */
export async function requireV3(api: ApiClient, feature: string): Promise<void> {
  const version = api.apiVersion ? await api.apiVersion() : 'v2';
  if (version !== 'v3') throw new NotInApiError(`${feature} are a GNS3 3.x feature; ${api.url} speaks the GNS3 API ${version}`);
}
