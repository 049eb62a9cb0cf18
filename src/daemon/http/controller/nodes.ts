import type { Router } from 'express';
import type { Labs } from '../../controller/lab.js';
import type { NodeManager } from '../../controller/nodes.js';
import type { ProjectManager } from '../../controller/projects.js';
import { route } from '../route.js';
import { NODE_CREATE_SCHEMA, NODE_UPDATE_SCHEMA } from '../../schemas/lab.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';
import { NODE_DUPLICATE_SCHEMA } from '../../schemas/project-extras.js';

export const NODES_ROUTE = '/v2/projects/{project_id}/nodes';
export const NODE_ROUTE = '/v2/projects/{project_id}/nodes/{node_id}';
const ACTIONS = ['start', 'stop', 'suspend', 'reload'] as const;

/** Controller node routes (GNS3 v2). */
export function nodeRoutes(router: Router, deps: { projects: ProjectManager; labs: Labs; nodes: NodeManager }): void {
  const { projects, labs, nodes } = deps;
  const labOf = (projectId: string) => labs.of(projects.getOpened(projectId));

  // Reads answer from the controller's live state, kept current by the computes' node.updated
  // notifications: a read never waits for a compute, however slow or gone it is.
  route(router, { method: 'get', template: NODES_ROUTE }, ({ params }) => [...labOf(params.project_id).nodes.values()].map((n) => n.toJSON()));
  route(router, { method: 'post', template: NODES_ROUTE, body: NODE_CREATE_SCHEMA, status: 201 }, async ({ params, body }) =>
    (await nodes.create(labOf(params.project_id), body)).toJSON(),
  );
  for (const action of ACTIONS) {
    route(router, { method: 'post', template: `${NODES_ROUTE}/${action}`, body: EMPTY_SCHEMA, status: 204 }, async ({ params }) => {
      const lab = labOf(params.project_id);
      await Promise.all([...lab.nodes.values()].map((n) => nodes.act(lab, n, action)));
    });
    route(router, { method: 'post', template: `${NODE_ROUTE}/${action}`, body: EMPTY_SCHEMA }, async ({ params }) => {
      const lab = labOf(params.project_id);
      return (await nodes.act(lab, lab.node(params.node_id), action)).toJSON();
    });
  }
  route(router, { method: 'get', template: NODE_ROUTE }, ({ params }) => labOf(params.project_id).node(params.node_id).toJSON());
  route(router, { method: 'put', template: NODE_ROUTE, body: NODE_UPDATE_SCHEMA }, async ({ params, body }) => {
    const lab = labOf(params.project_id);
    return (await nodes.update(lab, lab.node(params.node_id), body)).toJSON();
  });
  route(router, { method: 'delete', template: NODE_ROUTE, status: 204 }, async ({ params }) => {
    const lab = labOf(params.project_id);
    await nodes.remove(lab, lab.node(params.node_id));
  });
  route(router, { method: 'post', template: `${NODE_ROUTE}/duplicate`, body: NODE_DUPLICATE_SCHEMA, status: 201 }, async ({ params, body }) => {
    const lab = labOf(params.project_id);
    return (await nodes.duplicate(lab, lab.node(params.node_id), body)).toJSON();
  });
  route(router, { method: 'get', template: `${NODE_ROUTE}/links` }, ({ params }) => {
    const lab = labOf(params.project_id);
    lab.node(params.node_id);
    return [...lab.links.values()].filter((l) => l.ends.some((e) => e.node.id === params.node_id)).map((l) => l.toJSON());
  });
}
