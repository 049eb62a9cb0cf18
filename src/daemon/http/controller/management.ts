import type { Router } from 'express';
import type { Labs } from '../../controller/lab.js';
import type { ManagementNetworks, ManagementRequest } from '../../controller/management/networks.js';
import type { ProjectManager } from '../../controller/projects.js';
import { MANAGEMENT_PUT_SCHEMA } from '../../schemas/management.js';
import { route } from '../route.js';

export const MANAGEMENT_ROUTE = '/v2/projects/{project_id}/management';

/** emuctl: a project's management network (README, Compatibility): set, read, removed. */
export function managementRoutes(router: Router, deps: { projects: ProjectManager; labs: Labs; management: ManagementNetworks }): void {
  const { projects, labs, management } = deps;
  route(router, { method: 'get', template: MANAGEMENT_ROUTE }, ({ params }) => management.get(projects.get(params.project_id)));
  route(router, { method: 'put', template: MANAGEMENT_ROUTE, body: MANAGEMENT_PUT_SCHEMA }, ({ params, body }) =>
    management.put(labs.of(projects.getOpened(params.project_id)), body as ManagementRequest),
  );
  route(router, { method: 'delete', template: MANAGEMENT_ROUTE, status: 204 }, async ({ params }) => {
    await management.delete(labs.of(projects.getOpened(params.project_id)));
  });
}
