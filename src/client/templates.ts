import { apiPath, type ApiClient } from './api.js';
import type { Node } from './nodes.js';
import { resolveOne, type NamedKind } from './resolve.js';

/** A GNS3 2.2 template: its common fields, and its type's own. */
export interface Template {
  template_id: string;
  name: string;
  template_type: string;
  category?: string;
  builtin: boolean;
  compute_id: string | null;
  default_name_format?: string;
  symbol?: string;
  [field: string]: unknown;
}

/** Body of POST /v2/templates. */
export interface TemplateCreate {
  name: string;
  template_type: string;
  compute_id: string | null;
  [field: string]: unknown;
}

/** Where a node made from a template goes (GNS3's TEMPLATE_USAGE_SCHEMA). */
export interface TemplateUsage {
  x: number;
  y: number;
  name?: string;
  compute_id?: string;
}

/** Naming rules for templates (used by name-or-UUID resolution). */
export const TEMPLATE_KIND: NamedKind<Template> = {
  kind: 'template',
  id: (template) => template.template_id,
  name: (template) => template.name,
};

/** GET /v2/templates. */
export function listTemplates(api: ApiClient): Promise<Template[]> {
  return api.get<Template[]>('templates');
}

/** GET /v2/templates/{template_id}. */
export function getTemplate(api: ApiClient, templateId: string): Promise<Template> {
  return api.get<Template>(apiPath('templates', templateId));
}

/** POST /v2/templates. */
export function createTemplate(api: ApiClient, body: TemplateCreate): Promise<Template> {
  return api.post<Template>('templates', body);
}

/** DELETE /v2/templates/{template_id}. */
export function deleteTemplate(api: ApiClient, templateId: string): Promise<void> {
  return api.delete(apiPath('templates', templateId));
}

/** POST /v2/projects/{project_id}/templates/{template_id}: a node made from the template. */
export function createNodeFromTemplate(api: ApiClient, projectId: string, templateId: string, usage: TemplateUsage): Promise<Node> {
  return api.post<Node>(apiPath('projects', projectId, 'templates', templateId), usage);
}

/** The template named by `ref` (name, UUID or unique UUID prefix). */
export async function findTemplate(api: ApiClient, ref: string): Promise<Template> {
  return resolveOne(await listTemplates(api), ref, TEMPLATE_KIND);
}
