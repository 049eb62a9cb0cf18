import { apiPath, type ApiClient } from './api.js';
import type { Project } from './projects.js';
import { resolveOne, type NamedKind } from './resolve.js';

/** A GNS3 project snapshot. */
export interface Snapshot {
  snapshot_id: string;
  name: string;
  /** Seconds since the epoch (UTC). */
  created_at: number;
  project_id: string;
}

/** Naming rules for snapshots (used by name-or-UUID resolution). */
export const SNAPSHOT_KIND: NamedKind<Snapshot> = {
  kind: 'snapshot',
  id: (snapshot) => snapshot.snapshot_id,
  name: (snapshot) => snapshot.name,
};

/** GET /v2/projects/{project_id}/snapshots. */
export function listSnapshots(api: ApiClient, projectId: string): Promise<Snapshot[]> {
  return api.get<Snapshot[]>(apiPath('projects', projectId, 'snapshots'));
}

/** POST /v2/projects/{project_id}/snapshots. */
export function createSnapshot(api: ApiClient, projectId: string, name: string): Promise<Snapshot> {
  return api.post<Snapshot>(apiPath('projects', projectId, 'snapshots'), { name });
}

/** DELETE /v2/projects/{project_id}/snapshots/{snapshot_id}. */
export function deleteSnapshot(api: ApiClient, projectId: string, snapshotId: string): Promise<void> {
  return api.delete(apiPath('projects', projectId, 'snapshots', snapshotId));
}

/** POST …/snapshots/{snapshot_id}/restore; resolves with the project, opened again. */
export function restoreSnapshot(api: ApiClient, projectId: string, snapshotId: string): Promise<Project> {
  return api.post<Project>(apiPath('projects', projectId, 'snapshots', snapshotId, 'restore'));
}

/** The snapshot named by `ref` (name, UUID or unique UUID prefix) in the project. */
export async function findSnapshot(api: ApiClient, projectId: string, ref: string): Promise<Snapshot> {
  return resolveOne(await listSnapshots(api, projectId), ref, SNAPSHOT_KIND);
}
