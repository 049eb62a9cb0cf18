import { apiPath, type ApiClient } from './api.js';
import { emuctlOnly } from './server-kind.js';

/** A project's management network (emuctl's `/v2/projects/{project_id}/management`). */
export interface ManagementNetwork {
  ipv4: { subnet: string; gateway: string };
  ipv6: { subnet: string; gateway: string } | null;
  interface: string;
  /** A route out for the nodes (IPv4, masqueraded); false or absent: isolated. */
  nat?: boolean;
}

/** What `PUT .../management` takes: subnets (`auto`: a free one), the interface's name in the nodes, and a route out (`nat`). */
export interface ManagementRequest {
  ipv4?: string;
  ipv6?: string | false;
  interface?: string;
  nat?: boolean;
}

const NEEDS = 'a management network (mgmt:) needs';

/** Sets (or re-reads, when it has the same) the project's management network. */
export function putManagement(api: ApiClient, projectId: string, body: ManagementRequest): Promise<ManagementNetwork> {
  return emuctlOnly(api, NEEDS, () => api.put<ManagementNetwork>(apiPath('projects', projectId, 'management'), body));
}

/** The project's management network (a 404 when it has none). */
export function getManagement(api: ApiClient, projectId: string): Promise<ManagementNetwork> {
  return api.get<ManagementNetwork>(apiPath('projects', projectId, 'management'));
}

/** Removes the project's management network. */
export function deleteManagement(api: ApiClient, projectId: string): Promise<void> {
  return emuctlOnly(api, NEEDS, () => api.delete(apiPath('projects', projectId, 'management')));
}
