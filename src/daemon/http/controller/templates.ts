import type { Router } from 'express';
import type { Labs } from '../../controller/lab.js';
import type { NodeManager } from '../../controller/nodes.js';
import type { ProjectManager } from '../../controller/projects.js';
import { nodeFromTemplate, type TemplateManager, type TemplateUsage } from '../../controller/templates.js';
import { route } from '../route.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';
import { TEMPLATE_BODY_SCHEMA, TEMPLATE_USAGE_SCHEMA } from '../../schemas/project-extras.js';

export const TEMPLATES_ROUTE = '/v2/templates';
export const TEMPLATE_ROUTE = '/v2/templates/{template_id}';
export const NODE_FROM_TEMPLATE_ROUTE = '/v2/projects/{project_id}/templates/{template_id}';

/** Template routes (GNS3 2.2) and the creation of a node from a template. */
export function templateRoutes(router: Router, deps: { templates: TemplateManager; projects: ProjectManager; labs: Labs; nodes: NodeManager }): void {
  const { templates } = deps;
  route(router, { method: 'get', template: TEMPLATES_ROUTE }, () => templates.list());
  route(router, { method: 'post', template: TEMPLATES_ROUTE, body: TEMPLATE_BODY_SCHEMA, status: 201 }, ({ body }) => templates.create(body));
  route(router, { method: 'get', template: TEMPLATE_ROUTE }, ({ params }) => templates.get(params.template_id));
  route(router, { method: 'put', template: TEMPLATE_ROUTE, body: TEMPLATE_BODY_SCHEMA }, ({ params, body }) => templates.update(params.template_id, body));
  route(router, { method: 'delete', template: TEMPLATE_ROUTE, status: 204 }, ({ params }) => templates.remove(params.template_id));
  route(router, { method: 'post', template: `${TEMPLATE_ROUTE}/duplicate`, body: EMPTY_SCHEMA, status: 201 }, ({ params }) => templates.duplicate(params.template_id));
  route(router, { method: 'post', template: NODE_FROM_TEMPLATE_ROUTE, body: TEMPLATE_USAGE_SCHEMA, status: 201 }, async ({ params, body }) => {
    const lab = deps.labs.of(deps.projects.getOpened(params.project_id));
    const template = templates.get(params.template_id);
    return (await deps.nodes.create(lab, nodeFromTemplate(template, body))).toJSON();
  });
}
