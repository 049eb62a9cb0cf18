import type { Router } from 'express';
import type { DrawingManager } from '../../controller/drawings.js';
import type { Labs } from '../../controller/lab.js';
import type { ProjectManager } from '../../controller/projects.js';
import { route } from '../route.js';
import { DRAWING_SCHEMA } from '../../schemas/project-extras.js';

export const DRAWINGS_ROUTE = '/v2/projects/{project_id}/drawings';
export const DRAWING_ROUTE = '/v2/projects/{project_id}/drawings/{drawing_id}';

/** Drawing routes (GNS3 v2): shapes, text and pictures on an opened project's canvas. */
export function drawingRoutes(router: Router, deps: { projects: ProjectManager; labs: Labs; drawings: DrawingManager }): void {
  const { drawings } = deps;
  const labOf = (projectId: string) => deps.labs.of(deps.projects.getOpened(projectId));
  route(router, { method: 'get', template: DRAWINGS_ROUTE }, ({ params }) => [...labOf(params.project_id).drawings.values()].map((d) => d.toJSON()));
  route(router, { method: 'post', template: DRAWINGS_ROUTE, body: DRAWING_SCHEMA, status: 201 }, async ({ params, body }) =>
    (await drawings.create(labOf(params.project_id), body)).toJSON(),
  );
  route(router, { method: 'get', template: DRAWING_ROUTE }, ({ params }) => labOf(params.project_id).drawing(params.drawing_id).toJSON());
  route(router, { method: 'put', template: DRAWING_ROUTE, body: DRAWING_SCHEMA, status: 201 }, async ({ params, body }) => {
    const lab = labOf(params.project_id);
    return (await drawings.update(lab, lab.drawing(params.drawing_id), body)).toJSON();
  });
  route(router, { method: 'delete', template: DRAWING_ROUTE, status: 204 }, async ({ params }) => {
    const lab = labOf(params.project_id);
    await drawings.remove(lab, lab.drawing(params.drawing_id));
  });
}
