import type { Router } from 'express';
import type { LocalCompute } from '../../compute/local-compute.js';
import { route } from '../route.js';
import { sendStream } from '../streams.js';
import { COMPUTE_PROJECT_CREATE_SCHEMA, COMPUTE_PROJECT_UPDATE_SCHEMA } from '../../schemas/nodes.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';

export const COMPUTE_PROJECTS_ROUTE = '/v2/compute/projects';
export const COMPUTE_PROJECT_ROUTE = '/v2/compute/projects/{project_id}';
export const UDP_PORT_ROUTE = '/v2/compute/projects/{project_id}/ports/udp';
export const UDP_PORT_RELEASE_ROUTE = `${UDP_PORT_ROUTE}/{port_number}`;
export const COMPUTE_FILE_ROUTE = `${COMPUTE_PROJECT_ROUTE}/files/{path:.+}`;

/** The compute's project routes, UDP port allocation and project files (GNS3 v2 compute API); file uploads are raw bodies. */
export function computeProjectRoutes(router: Router, deps: { compute: LocalCompute }): void {
  const { compute } = deps;
  route(router, { method: 'get', template: COMPUTE_PROJECTS_ROUTE }, () => [...compute.projects.values()].map((p) => p.toJSON()));
  route(router, { method: 'post', template: COMPUTE_PROJECTS_ROUTE, body: COMPUTE_PROJECT_CREATE_SCHEMA, status: 201 }, ({ body }) => compute.createProject(body));
  route(router, { method: 'get', template: COMPUTE_PROJECT_ROUTE }, ({ params }) => compute.project(params.project_id).toJSON());
  route(router, { method: 'put', template: COMPUTE_PROJECT_ROUTE, body: COMPUTE_PROJECT_UPDATE_SCHEMA }, ({ params, body }) => compute.updateProject(params.project_id, body));
  route(router, { method: 'delete', template: COMPUTE_PROJECT_ROUTE, status: 204 }, ({ params }) => compute.deleteProject(params.project_id));
  route(router, { method: 'post', template: `${COMPUTE_PROJECT_ROUTE}/close`, body: EMPTY_SCHEMA, status: 204 }, ({ params }) => compute.closeProject(params.project_id));
  route(router, { method: 'post', template: UDP_PORT_ROUTE, body: EMPTY_SCHEMA, status: 201 }, async ({ params }) => ({ udp_port: await compute.allocateUdpPort(params.project_id) }));
  route(router, { method: 'delete', template: UDP_PORT_RELEASE_ROUTE, status: 204 }, ({ params }) => compute.releaseUdpPort(params.project_id, Number(params.port_number)));
  route(router, { method: 'get', template: `${COMPUTE_PROJECT_ROUTE}/files` }, ({ params }) => compute.listFiles(params.project_id));
  route(router, { method: 'get', template: COMPUTE_FILE_ROUTE, raw: true }, async ({ params, res }) => {
    await sendStream(res, await compute.readFile(params.project_id, params.path), 'application/octet-stream');
  });
  route(router, { method: 'post', template: COMPUTE_FILE_ROUTE, status: 201 }, async ({ params, req }) => {
    await compute.writeFile(params.project_id, params.path, req);
    return undefined;
  });
}
