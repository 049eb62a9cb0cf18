import type { Router } from 'express';
import type { ProjectManager } from '../../controller/projects.js';
import type { SnapshotManager } from '../../controller/snapshots.js';
import { route } from '../route.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';
import { SNAPSHOT_CREATE_SCHEMA } from '../../schemas/project-extras.js';

export const SNAPSHOTS_ROUTE = '/v2/projects/{project_id}/snapshots';
export const SNAPSHOT_ROUTE = '/v2/projects/{project_id}/snapshots/{snapshot_id}';

/** Snapshot routes (GNS3 v2): take, list, delete and restore. */
export function snapshotRoutes(router: Router, deps: { projects: ProjectManager; snapshots: SnapshotManager }): void {
  const { projects, snapshots } = deps;
  route(router, { method: 'get', template: SNAPSHOTS_ROUTE }, ({ params }) => snapshots.list(projects.get(params.project_id)));
  route(router, { method: 'post', template: SNAPSHOTS_ROUTE, body: SNAPSHOT_CREATE_SCHEMA, status: 201 }, ({ params, body }) =>
    snapshots.create(projects.get(params.project_id), body.name),
  );
  route(router, { method: 'delete', template: SNAPSHOT_ROUTE, status: 204 }, ({ params }) => snapshots.remove(projects.get(params.project_id), params.snapshot_id));
  route(router, { method: 'post', template: `${SNAPSHOT_ROUTE}/restore`, body: EMPTY_SCHEMA, status: 201 }, async ({ params }) =>
    (await snapshots.restore(projects.get(params.project_id), params.snapshot_id)).toJSON(),
  );
}
