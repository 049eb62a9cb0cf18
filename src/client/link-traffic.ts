import { apiPath, type ApiClient } from './api.js';

/** One link's port counters, read on one end (emuctl's traffic route). */
export interface LinkTraffic {
  link_id: string;
  /** The end the counters were read on. */
  node_id: string;
  adapter_number: number;
  port_number: number;
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  drops: number;
  errors: number;
  /** When the end's compute answered, in milliseconds since the epoch. */
  timestamp: number;
}

/**
 * GET /v2/projects/{project_id}/traffic (emuctl only): the counters of each link with an end on a
 * started node that has them; links without such an end are absent.
 */
export function getLinkTraffic(api: ApiClient, projectId: string): Promise<LinkTraffic[]> {
  return api.get<LinkTraffic[]>(apiPath('projects', projectId, 'traffic'));
}
