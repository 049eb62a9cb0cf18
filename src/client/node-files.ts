import { apiPath, type ApiClient } from './api.js';
import { OperationError } from './errors.js';

/** The file VPCS runs at start, in its node directory; GNS3 and emuctl keep ip/gateway/dns there. */
export const VPCS_STARTUP_FILE = 'startup.vpc';

/** GET /v2/projects/{project_id}/nodes/{node_id}/files/{path}: the file's text, or undefined when it does not exist (404). */
export async function readNodeFile(api: ApiClient, projectId: string, nodeId: string, path: string): Promise<string | undefined> {
  try {
    return await api.getText(`${apiPath('projects', projectId, 'nodes', nodeId, 'files')}/${path.split('/').map(encodeURIComponent).join('/')}`);
  } catch (err) {
    if (err instanceof OperationError && err.status === 404) return undefined;
    throw err;
  }
}

/** POST /v2/projects/{project_id}/nodes/{node_id}/files/{path}: writes the file (GNS3 answers 201). */
export function writeNodeFile(api: ApiClient, projectId: string, nodeId: string, path: string, text: string): Promise<void> {
  return api.postText(`${apiPath('projects', projectId, 'nodes', nodeId, 'files')}/${path.split('/').map(encodeURIComponent).join('/')}`, text);
}
