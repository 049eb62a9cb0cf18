import type { Router } from 'express';
import type { ComputeRegistry } from '../../controller/computes.js';
import type { Labs } from '../../controller/lab.js';
import type { NodeManager } from '../../controller/nodes.js';
import type { ProjectManager } from '../../controller/projects.js';
import { savedNodesJSON } from '../../controller/saved-topology.js';
import { ConflictError } from '../../errors.js';
import { EXEC_SCHEMA } from '../../schemas/nodes.js';
import { route } from '../route.js';
import { NODE_CREATE_SCHEMA, NODE_UPDATE_SCHEMA } from '../../schemas/lab.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';
import { NODE_DUPLICATE_SCHEMA } from '../../schemas/project-extras.js';

export const NODES_ROUTE = '/v2/projects/{project_id}/nodes';
export const NODE_ROUTE = '/v2/projects/{project_id}/nodes/{node_id}';
const ACTIONS = ['start', 'stop', 'suspend', 'reload'] as const;

/** Controller node routes (GNS3 v2). */
export function nodeRoutes(router: Router, deps: { projects: ProjectManager; labs: Labs; nodes: NodeManager; computes: ComputeRegistry }): void {
  const { projects, labs, nodes, computes } = deps;
  const labOf = (projectId: string) => labs.of(projects.getOpened(projectId));
  const consoleHostOf = (computeId: string) => (computes.has(computeId) ? computes.hostOf(computeId) : null);

  // A project not opened (just imported, say) answers with the nodes of its file: scripts list them right away.
  // An opened one answers from the controller's live state, kept current by the computes' node.updated
  // notifications: a read never waits for a compute, however slow or gone it is.
  route(router, { method: 'get', template: NODES_ROUTE }, ({ params }) => {
    const project = projects.get(params.project_id);
    if (project.status !== 'opened') return savedNodesJSON(project, consoleHostOf, nodes.types);
    return [...labs.of(project).nodes.values()].map((n) => n.toJSON());
  });
  route(router, { method: 'post', template: NODES_ROUTE, body: NODE_CREATE_SCHEMA, status: 201 }, async ({ params, body }) =>
    (await nodes.create(labOf(params.project_id), body)).toJSON(),
  );
  for (const action of ACTIONS) {
    route(router, { method: 'post', template: `${NODES_ROUTE}/${action}`, body: EMPTY_SCHEMA, status: 204 }, async ({ params }) => {
      await nodes.actAll(labOf(params.project_id), action);
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
  // emuctl: runs a command in a docker node on its compute (local or remote); other kinds answer 409.
  route(router, { method: 'post', template: `${NODE_ROUTE}/exec`, body: EXEC_SCHEMA }, ({ params, body }) => {
    const lab = labOf(params.project_id);
    const node = lab.node(params.node_id);
    // Refused here, not by the compute: a GNS3 compute would answer 404 for a route it does not have.
    if (!node.rules?.exec) throw new ConflictError(`node ${node.name} (${node.nodeType}) has no exec; use its console`);
    return node.compute.execInNode(lab.project.id, node.nodeType, node.id, body);
  });
  route(router, { method: 'get', template: `${NODE_ROUTE}/links` }, ({ params }) => {
    const lab = labOf(params.project_id);
    lab.node(params.node_id);
    return [...lab.links.values()].filter((l) => l.ends.some((e) => e.node.id === params.node_id)).map((l) => l.toJSON());
  });
}
