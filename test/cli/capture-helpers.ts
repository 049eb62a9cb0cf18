// Shared by the capture run tests: a VPCS lab built through the API, and a context for calling run functions directly.
import assert from 'node:assert/strict';
import { createContext, type Context } from '../../src/cli/context.js';
import { connectVpcsConsole, setIp, type VpcsConsole } from '../../src/client/vpcs-console.js';
import { BufferOutput } from '../../src/render/buffer-output.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

/** Two VPCS (10.0.0.1/24 and 10.0.0.2/24) on a switch, started, with their consoles open. */
export interface VpcsLab {
  projectId: string;
  projectName: string;
  /** PC1's link (PC1:0/0-SW1:0/0) and PC2's. */
  link1: any;
  link2: any;
  pc1: VpcsConsole;
  pc2: VpcsConsole;
  close(): void;
}

/** Builds the classic lab through the API (the CLI verbs for nodes and links are another suite's subject). */
export async function buildVpcsLab(d: TestDaemon, projectName: string): Promise<VpcsLab> {
  const projectId = await createProject(d, projectName);
  const sw = await createNode(d, projectId, 'SW1', 'ethernet_switch');
  const nodes = [await createNode(d, projectId, 'PC1', 'vpcs'), await createNode(d, projectId, 'PC2', 'vpcs')];
  const link1 = await createLink(d, projectId, [nodes[0].node_id, 0], [sw.node_id, 0]);
  const link2 = await createLink(d, projectId, [nodes[1].node_id, 0], [sw.node_id, 1]);
  for (const node of nodes) {
    const r = await d.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/start`, {});
    assert.equal(r.status, 200, r.text);
  }
  const [pc1, pc2] = await Promise.all(nodes.map((n) => connectVpcsConsole('127.0.0.1', n.console)));
  await Promise.all([setIp(pc1, '10.0.0.1/24'), setIp(pc2, '10.0.0.2/24')]);
  return { projectId, projectName, link1, link2, pc1, pc2, close: () => [pc1, pc2].forEach((c) => c.close()) };
}

/** A context for calling a verb's run() directly (for the sinks the CLI entry point cannot pass). */
export async function directContext(url: string, env: NodeJS.ProcessEnv, options: { json?: boolean } = {}): Promise<{ ctx: Context; out: BufferOutput }> {
  const out = new BufferOutput({ env });
  await out.configure({ json: options.json ?? false, color: false });
  const ctx = createContext(out, env, { url, json: options.json ?? false, color: false, quiet: false, debug: false });
  return { ctx, out };
}

/** Waits until `check()` holds (polling every 50 ms), or fails after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
