import type { Router } from 'express';
import type { ProjectManager } from '../../controller/projects.js';
import { route } from '../route.js';
import { EMPTY_SCHEMA, PROJECT_CREATE_SCHEMA, PROJECT_UPDATE_SCHEMA } from '../../schemas/project.js';

export const PROJECTS_ROUTE = '/v2/projects';
export const PROJECT_ROUTE = '/v2/projects/{project_id}';

/** Controller project routes (GNS3 v2). */
export function projectRoutes(router: Router, deps: { projects: ProjectManager }): void {
  const { projects } = deps;
  route(router, { method: 'get', template: PROJECTS_ROUTE }, () => projects.list().map((p) => p.toJSON()));
  route(router, { method: 'post', template: PROJECTS_ROUTE, body: PROJECT_CREATE_SCHEMA, status: 201 }, async ({ body }) =>
    (await projects.create(body)).toJSON(),
  );
  route(router, { method: 'get', template: PROJECT_ROUTE }, ({ params }) => projects.get(params.project_id).toJSON());
  route(router, { method: 'put', template: PROJECT_ROUTE, body: PROJECT_UPDATE_SCHEMA }, async ({ params, body }) =>
    (await projects.update(params.project_id, body)).toJSON(),
  );
  route(router, { method: 'delete', template: PROJECT_ROUTE, status: 204 }, async ({ params }) => {
    await projects.delete(params.project_id);
  });
  route(router, { method: 'post', template: `${PROJECT_ROUTE}/open`, body: EMPTY_SCHEMA, status: 201 }, async ({ params }) =>
    (await projects.open(params.project_id)).toJSON(),
  );
  route(router, { method: 'post', template: `${PROJECT_ROUTE}/close`, body: EMPTY_SCHEMA, status: 204 }, async ({ params }) => {
    await projects.close(params.project_id);
  });
}
