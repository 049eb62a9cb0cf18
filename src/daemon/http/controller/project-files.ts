import type { Router } from 'express';
import { checkRelativePath } from '../../compute/project-files.js';
import type { Labs } from '../../controller/lab.js';
import type { ProjectManager } from '../../controller/projects.js';
import type { SnapshotManager } from '../../controller/snapshots.js';
import { route } from '../route.js';
import { sendStream } from '../streams.js';
import { PROJECT_LOAD_SCHEMA } from '../../schemas/project-extras.js';
import { PROJECT_ROUTE, PROJECTS_ROUTE } from './projects.js';
import { NODE_ROUTE } from './nodes.js';

export const PROJECT_FILE_ROUTE = `${PROJECT_ROUTE}/files/{path:.+}`;
export const NODE_FILE_ROUTE = `${NODE_ROUTE}/files/{path:.+}`;

/**
 * A project's statistics, its files and its nodes' files (paths stay inside, 400 otherwise), and
 * `POST /v2/projects/load`. Uploads are raw bodies.
 */
export function projectFileRoutes(router: Router, deps: { projects: ProjectManager; labs: Labs; snapshots: SnapshotManager }): void {
  const { projects, labs } = deps;
  route(router, { method: 'get', template: `${PROJECT_ROUTE}/stats` }, async ({ params }) => {
    const project = projects.get(params.project_id);
    const lab = project.status === 'opened' ? labs.of(project) : undefined;
    const { nodes, links, drawings } = project.topology;
    return {
      nodes: lab?.nodes.size ?? nodes.length,
      links: lab?.links.size ?? links.length,
      drawings: lab?.drawings.size ?? drawings.length,
      snapshots: (await deps.snapshots.list(project)).length,
    };
  });
  route(router, { method: 'post', template: `${PROJECTS_ROUTE}/load`, body: PROJECT_LOAD_SCHEMA, status: 201 }, async ({ body }) =>
    (await projects.loadFile(body.path)).toJSON(),
  );
  route(router, { method: 'get', template: PROJECT_FILE_ROUTE, raw: true }, async ({ params, res }) => {
    await sendStream(res, await projects.readFile(params.project_id, params.path), 'application/octet-stream');
  });
  route(router, { method: 'post', template: PROJECT_FILE_ROUTE, status: 201 }, async ({ params, req }) => {
    await projects.writeFile(params.project_id, params.path, req);
    return undefined;
  });

  const nodeFile = (params: Record<string, string>) => {
    const lab = labs.of(projects.getOpened(params.project_id));
    const node = lab.node(params.node_id);
    return { node, path: `project-files/${node.nodeType}/${node.id}/${checkRelativePath(params.path)}` };
  };
  route(router, { method: 'get', template: NODE_FILE_ROUTE, raw: true }, async ({ params, res }) => {
    const { node, path } = nodeFile(params);
    await sendStream(res, await node.compute.readFile(params.project_id, path), 'application/octet-stream');
  });
  route(router, { method: 'post', template: NODE_FILE_ROUTE, status: 201 }, async ({ params, req }) => {
    const { node, path } = nodeFile(params);
    await node.compute.writeFile(params.project_id, path, req);
    return undefined;
  });
}
