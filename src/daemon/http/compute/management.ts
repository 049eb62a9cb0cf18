import type { Router } from 'express';
import type { LocalCompute } from '../../compute/local-compute.js';
import { NotFoundError } from '../../errors.js';
import { MANAGEMENT_NETWORK_SCHEMA } from '../../schemas/management.js';
import { route } from '../route.js';

export const COMPUTE_MANAGEMENT_ROUTE = '/v2/compute/projects/{project_id}/management';

/** emuctl: a project's management network on this compute (the controller chose its subnets). */
export function computeManagementRoutes(router: Router, deps: { compute: LocalCompute }): void {
  const { compute } = deps;
  route(router, { method: 'get', template: COMPUTE_MANAGEMENT_ROUTE }, ({ params }) => {
    const network = compute.management(params.project_id);
    if (!network) throw new NotFoundError(`Project ${params.project_id} has no management network on this compute`);
    return network;
  });
  route(router, { method: 'put', template: COMPUTE_MANAGEMENT_ROUTE, body: MANAGEMENT_NETWORK_SCHEMA }, async ({ params, body }) => {
    await compute.setManagement(params.project_id, body);
    return body;
  });
  route(router, { method: 'delete', template: COMPUTE_MANAGEMENT_ROUTE, status: 204 }, async ({ params }) => {
    await compute.setManagement(params.project_id, null);
  });
}
