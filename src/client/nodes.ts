import { apiPath, type ApiClient } from './api.js';
import { findCompute, listComputes } from './computes.js';
import { resolveOne, type NamedKind } from './resolve.js';

/** A node port as the GNS3 v2 controller lists it. */
export interface NodePort {
  name: string;
  short_name: string;
  adapter_number: number;
  port_number: number;
  link_type: 'ethernet' | 'serial' | string;
  data_link_types?: Record<string, string>;
  [field: string]: unknown;
}

/** A GNS3 v2 node as the controller returns it. */
export interface Node {
  node_id: string;
  project_id: string;
  compute_id: string;
  name: string;
  node_type: string;
  status: 'started' | 'stopped' | 'suspended' | string;
  /** The console TCP port, or null when the node has none (switches, hubs). */
  console: number | null;
  console_type: 'telnet' | 'none' | string | null;
  console_host: string;
  properties: Record<string, unknown>;
  ports: NodePort[];
  x?: number;
  y?: number;
  z?: number;
  [field: string]: unknown;
}

/** Body of POST /v2/projects/{project_id}/nodes. */
export interface NodeCreate {
  name: string;
  node_type: string;
  /** GNS3 requires it (400 "'compute_id' is a required property" without it); see computeIdFor. */
  compute_id: string;
  properties?: Record<string, unknown>;
  [field: string]: unknown;
}

/** Fields accepted by PUT /v2/projects/{project_id}/nodes/{node_id}. */
export type NodeUpdate = Partial<NodeCreate>;

/** What POST /v2/projects/{project_id}/nodes/{node_id}/{action} does. */
export type NodeAction = 'start' | 'stop' | 'suspend' | 'reload';

/** Naming rules for nodes (used by name-or-UUID resolution). */
export const NODE_KIND: NamedKind<Node> = {
  kind: 'node',
  id: (node) => node.node_id,
  name: (node) => node.name,
};

/** GET /v2/projects/{project_id}/nodes. */
export function listNodes(api: ApiClient, projectId: string): Promise<Node[]> {
  return api.get<Node[]>(apiPath('projects', projectId, 'nodes'));
}

/** POST /v2/projects/{project_id}/nodes. */
export function createNode(api: ApiClient, projectId: string, body: NodeCreate): Promise<Node> {
  return api.post<Node>(apiPath('projects', projectId, 'nodes'), body);
}

/** GET /v2/projects/{project_id}/nodes/{node_id}. */
export function getNode(api: ApiClient, projectId: string, nodeId: string): Promise<Node> {
  return api.get<Node>(apiPath('projects', projectId, 'nodes', nodeId));
}

/** PUT /v2/projects/{project_id}/nodes/{node_id}. */
export function updateNode(api: ApiClient, projectId: string, nodeId: string, fields: NodeUpdate): Promise<Node> {
  return api.put<Node>(apiPath('projects', projectId, 'nodes', nodeId), fields);
}

/** DELETE /v2/projects/{project_id}/nodes/{node_id}. */
export function deleteNode(api: ApiClient, projectId: string, nodeId: string): Promise<void> {
  return api.delete(apiPath('projects', projectId, 'nodes', nodeId));
}

/** POST /v2/projects/{project_id}/nodes/{node_id}/{start|stop|suspend|reload}; resolves with the node. */
export async function nodeAction(api: ApiClient, projectId: string, nodeId: string, action: NodeAction, timeoutMs?: number): Promise<Node> {
  const node = await api.post<Node | ''>(apiPath('projects', projectId, 'nodes', nodeId, action), undefined, timeoutMs === undefined ? undefined : { timeoutMs });
  // GNS3 answers reload (and some versions start/stop) with 204: fetch the node then.
  return node || getNode(api, projectId, nodeId);
}

/** POST /v2/projects/{project_id}/nodes/{start|stop|suspend|reload}: every node of the project (204). */
export async function allNodesAction(api: ApiClient, projectId: string, action: NodeAction): Promise<void> {
  await api.post<unknown>(apiPath('projects', projectId, 'nodes', action));
}

/** The node named by `ref` (name, UUID or unique UUID prefix) in the project. */
export async function resolveNode(api: ApiClient, projectId: string, ref: string): Promise<Node> {
  return resolveOne(await listNodes(api, projectId), ref, NODE_KIND);
}

/** Compute id → name, for showing where nodes run; empty when the server does not say. */
export async function computeNames(api: ApiClient): Promise<Map<string, string>> {
  try {
    return new Map((await listComputes(api)).map((c) => [c.compute_id, c.name]));
  } catch {
    return new Map();
  }
}

/** computeNames, asked only when one of `nodes` runs on a compute other than the local one (shown as `local`). */
export async function computeNamesFor(api: ApiClient, nodes: readonly Node[]): Promise<Map<string, string>> {
  return nodes.some((node) => node.compute_id !== LOCAL_COMPUTE_ID) ? computeNames(api) : new Map();
}

/** The id of the server's own compute, in GNS3 and emuctl alike. */
export const LOCAL_COMPUTE_ID = 'local';

/** The compute_id of the compute named by `ref` (name, id or unique id prefix), for `node create --compute`. */
export async function resolveComputeId(api: ApiClient, ref: string): Promise<string> {
  return (await findCompute(api, ref)).compute_id;
}

/** The compute_id to create a node with: the compute named by `ref`, else the local one. */
export async function computeIdFor(api: ApiClient, ref: string | undefined): Promise<string> {
  return ref === undefined ? LOCAL_COMPUTE_ID : resolveComputeId(api, ref);
}

/**
 * Where to reach a node's console: its console_host, except that a wildcard bind address
 * (0.0.0.0, ::) means "this server", so the host of the server URL is used instead.
 */
export function consoleAddress(node: Node, serverUrl: string): { host: string; port: number } | undefined {
  if (node.console === null || node.console === undefined || node.console_type === 'none' || !node.console_type) return undefined;
  const wildcard = !node.console_host || node.console_host === '0.0.0.0' || node.console_host === '::' || node.console_host === '0:0:0:0:0:0:0:0';
  const host = wildcard ? new URL(serverUrl).hostname.replace(/^\[|\]$/g, '') : node.console_host;
  return { host, port: node.console };
}
