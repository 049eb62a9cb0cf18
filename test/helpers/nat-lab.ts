import assert from 'node:assert/strict';
import { connectVpcsConsole, type VpcsConsole } from '../../src/client/vpcs-console.js';
import type { TestDaemon } from './daemon.js';
import { createLink, createNode, createProject } from './lab.js';

/** What `ip dhcp` prints on a VPCS that got a lease. */
export const LEASED = /IP \d+\.\d+\.\d+\.\d+\/24/;

/** A project with a NAT node and a started VPCS linked to it that has leased an address (`ip dhcp`); its console is left open. */
export async function leasedVpcsBehindNat(d: TestDaemon, projectName: string): Promise<{ projectId: string; nat: any; pc: any; console: VpcsConsole }> {
  const projectId = await createProject(d, projectName);
  const nat = await createNode(d, projectId, 'NAT1', 'nat');
  const pc = await createNode(d, projectId, 'PC1', 'vpcs');
  await createLink(d, projectId, [pc.node_id, 0], [nat.node_id, 0]);
  assert.equal((await d.api('POST', `/v2/projects/${projectId}/nodes/${pc.node_id}/start`, {})).status, 200);
  const console = await connectVpcsConsole('127.0.0.1', pc.console);
  try {
    assert.match(await console.run('ip dhcp', { timeoutMs: 30_000 }), LEASED);
  } catch (err) {
    console.close();
    throw err;
  }
  return { projectId, nat, pc, console };
}
