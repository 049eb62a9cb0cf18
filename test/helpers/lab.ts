import assert from 'node:assert/strict';
import type { TestDaemon } from './daemon.js';

/** Creates an opened project and returns its id. */
export async function createProject(d: TestDaemon, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await d.api('POST', '/v2/projects', { name, ...extra });
  assert.equal(r.status, 201, r.text);
  return r.body.project_id;
}

/** Creates a node through the controller and returns its JSON. */
export async function createNode(d: TestDaemon, projectId: string, name: string, nodeType: string, extra: Record<string, unknown> = {}): Promise<any> {
  const r = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name, node_type: nodeType, ...extra });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

/** Links two node ports (adapter 0) and returns the Link JSON. */
export async function createLink(d: TestDaemon, projectId: string, a: [string, number], b: [string, number]): Promise<any> {
  const r = await d.api('POST', `/v2/projects/${projectId}/links`, {
    nodes: [
      { node_id: a[0], adapter_number: 0, port_number: a[1] },
      { node_id: b[0], adapter_number: 0, port_number: b[1] },
    ],
  });
  assert.equal(r.status, 201, r.text);
  return r.body;
}
