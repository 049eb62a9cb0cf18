import { apiPath, type ApiClient } from './api.js';
import { requireV3 } from './v3-only.js';
import { resolveOne, type NamedKind } from './resolve.js';

/** A GNS3 3.x resource pool (GET /v3/pools). */
export interface Pool {
  resource_pool_id: string;
  name: string;
  created_at?: string;
  updated_at?: string;
}

/** A resource of a pool (GET /v3/pools/{id}/resources). */
export interface PoolResource {
  resource_id: string;
  resource_type: string;
  name?: string;
}

/** GET /v3/pools. */
export async function listPools(api: ApiClient): Promise<Pool[]> {
  await requireV3(api, 'resource pools');
  return api.get<Pool[]>('pools');
}

/** POST /v3/pools (201). */
export async function createPool(api: ApiClient, name: string): Promise<Pool> {
  await requireV3(api, 'resource pools');
  return api.post<Pool>('pools', { name });
}

/** DELETE /v3/pools/{resource_pool_id} (204). */
export async function deletePool(api: ApiClient, poolId: string): Promise<void> {
  await requireV3(api, 'resource pools');
  await api.delete(apiPath('pools', poolId));
}

/** GET /v3/pools/{resource_pool_id}/resources. */
export async function poolResources(api: ApiClient, poolId: string): Promise<PoolResource[]> {
  await requireV3(api, 'resource pools');
  return api.get<PoolResource[]>(apiPath('pools', poolId, 'resources'));
}

/** PUT /v3/pools/{resource_pool_id}/resources/{resource_id} (204): a project joins the pool. */
export async function addToPool(api: ApiClient, poolId: string, resourceId: string): Promise<void> {
  await requireV3(api, 'resource pools');
  await api.put(apiPath('pools', poolId, 'resources', resourceId));
}

/** DELETE /v3/pools/{resource_pool_id}/resources/{resource_id} (204). */
export async function removeFromPool(api: ApiClient, poolId: string, resourceId: string): Promise<void> {
  await requireV3(api, 'resource pools');
  await api.delete(apiPath('pools', poolId, 'resources', resourceId));
}

/** How pools are named in messages and found by name, UUID or prefix. */
export const POOL_KIND: NamedKind<Pool> = { kind: 'pool', id: (pool) => pool.resource_pool_id, name: (pool) => pool.name };

/** The pool named by `ref` (name, UUID or unique UUID prefix). */
export async function resolvePool(api: ApiClient, ref: string): Promise<Pool> {
  return resolveOne(await listPools(api), ref, POOL_KIND);
}
