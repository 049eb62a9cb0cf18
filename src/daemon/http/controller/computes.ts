import type { Router } from 'express';
import type { ComputeRegistry } from '../../controller/computes.js';
import { route } from '../route.js';

export const COMPUTES_ROUTE = '/v2/computes';
export const COMPUTE_ROUTE = '/v2/computes/{compute_id}';

/** Controller compute registry routes (GNS3 v2). */
export function computeRegistryRoutes(router: Router, deps: { computes: ComputeRegistry }): void {
  const { computes } = deps;
  route(router, { method: 'get', template: COMPUTES_ROUTE }, () => computes.list().map((c) => computes.toJSON(c)));
  route(router, { method: 'get', template: COMPUTE_ROUTE }, ({ params }) => computes.toJSON(computes.get(params.compute_id)));
  route(router, { method: 'delete', template: COMPUTE_ROUTE, status: 204 }, ({ params }) => {
    computes.remove(params.compute_id);
  });
}
