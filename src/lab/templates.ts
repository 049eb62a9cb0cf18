import { apiPath, type ApiClient } from '../client/api.js';
import type { Node } from '../client/nodes.js';
import { resolveOne } from '../client/resolve.js';

interface TemplateRef {
  template_id: string;
  name: string;
}

/**
 * A node made from a template (GNS3 2.2: GET /v2/templates, then POST
 * /v2/projects/{project_id}/templates/{template_id} with x, y, name and compute_id).
 */
export async function createNodeFromTemplate(api: ApiClient, projectId: string, template: string, usage: { name: string; compute_id: string; x: number; y: number }): Promise<Node> {
  const templates = await api.get<TemplateRef[]>('templates');
  const found = resolveOne(templates, template, { kind: 'template', id: (t) => t.template_id, name: (t) => t.name });
  return api.post<Node>(apiPath('projects', projectId, 'templates', found.template_id), usage);
}
