import { requireV3 } from './v3-only.js';
import { apiPath, type ApiClient } from './api.js';
import { OperationError } from './errors.js';
import { resolveOne, type NamedKind } from './resolve.js';

/** A GNS3 v2 project as the API returns it. */
export interface Project {
  project_id: string;
  name: string;
  path?: string;
  filename?: string;
  status: 'opened' | 'closed' | string;
  auto_start?: boolean;
  auto_close?: boolean;
  auto_open?: boolean;
  [field: string]: unknown;
}

/** Fields accepted by POST /v2/projects and PUT /v2/projects/{project_id}. */
export interface ProjectFields {
  name?: string;
  path?: string;
  auto_start?: boolean;
  auto_close?: boolean;
  auto_open?: boolean;
}

/** Naming rules for projects (used by name-or-UUID resolution). */
export const PROJECT_KIND: NamedKind<Project> = {
  kind: 'project',
  id: (project) => project.project_id,
  name: (project) => project.name,
};

/** GET /v2/projects. */
export function listProjects(api: ApiClient): Promise<Project[]> {
  return api.get<Project[]>('projects');
}

/** GET /v2/projects/{project_id}. */
export function getProject(api: ApiClient, projectId: string): Promise<Project> {
  return api.get<Project>(apiPath('projects', projectId));
}

/** GET /v2/projects/{project_id}, or undefined when the server has no such project (404). */
export async function getProjectIfAny(api: ApiClient, projectId: string): Promise<Project | undefined> {
  try {
    return await getProject(api, projectId);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** True for the error of a request the server answered with 404. */
export function isNotFound(err: unknown): boolean {
  return err instanceof OperationError && err.status === 404;
}

/** POST /v2/projects. */
export function createProject(api: ApiClient, fields: ProjectFields & { name: string }): Promise<Project> {
  return api.post<Project>('projects', fields);
}

/** PUT /v2/projects/{project_id}. */
export function updateProject(api: ApiClient, projectId: string, fields: ProjectFields): Promise<Project> {
  return api.put<Project>(apiPath('projects', projectId), fields);
}

/** DELETE /v2/projects/{project_id}. */
export function deleteProject(api: ApiClient, projectId: string, timeoutMs?: number): Promise<void> {
  return api.delete(apiPath('projects', projectId), timeoutMs === undefined ? undefined : { timeoutMs });
}

/** POST /v2/projects/{project_id}/open. */
export function openProject(api: ApiClient, projectId: string): Promise<Project> {
  return api.post<Project>(apiPath('projects', projectId, 'open'));
}

/** POST /v2/projects/{project_id}/close; GNS3 answers 204 with no body, so the project is then fetched. */
export async function closeProject(api: ApiClient, projectId: string): Promise<Project> {
  const closed = await api.post<Project | ''>(apiPath('projects', projectId, 'close'));
  return closed || getProject(api, projectId);
}

/** The project named by `ref` (name, UUID or unique UUID prefix). */
export async function findProject(api: ApiClient, ref: string): Promise<Project> {
  return resolveOne(await listProjects(api), ref, PROJECT_KIND);
}

/** POST /v2/projects/{project_id}/duplicate: a copy under `name` (GNS3 numbers a taken name). */
export function duplicateProject(api: ApiClient, projectId: string, fields: { name: string; reset_mac_addresses?: boolean }): Promise<Project> {
  return api.post<Project>(apiPath('projects', projectId, 'duplicate'), fields);
}


/** POST /v3/projects/{project_id}/lock or unlock (204): GNS3 3.x refuses changes to a locked project's nodes. */
export async function setProjectLock(api: ApiClient, projectId: string, locked: boolean): Promise<void> {
  await requireV3(api, 'project locks');
  await api.post(apiPath('projects', projectId, locked ? 'lock' : 'unlock'));
}

/** GET /v3/projects/{project_id}/locked. */
export async function projectLocked(api: ApiClient, projectId: string): Promise<boolean> {
  await requireV3(api, 'project locks');
  return api.get<boolean>(apiPath('projects', projectId, 'locked'));
}
