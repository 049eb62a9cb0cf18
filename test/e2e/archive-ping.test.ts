// A project exported, imported back as a new project, started: its VPCS keep their startup scripts
// (IP addresses) and ping each other through the imported switch.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connectVpcsConsole, ping } from '../../src/client/vpcs-console.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '20550-20599', EMUCTL_CONSOLE_PORT_RANGE: '27590-27599' };

describe('export → import → start → ping', () => {
  let d: TestDaemon;

  before(async () => {
    d = await startTestDaemon({ env: ENV });
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it('an imported project works: nodes start with their files and the VPCS ping each other', async () => {
    const pid = await createProject(d, 'to-export');
    const sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const pcs = [await createNode(d, pid, 'PC1', 'vpcs'), await createNode(d, pid, 'PC2', 'vpcs')];
    for (const [i, pc] of pcs.entries()) {
      await createLink(d, pid, [pc.node_id, 0], [sw.node_id, i]);
      const put = await fetch(`${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/startup.vpc`, { method: 'POST', body: `set pcname PC${i + 1}\nip 10.8.0.${i + 1}/24\n` });
      assert.equal(put.status, 201);
    }
    const exported = await fetch(`${d.url}/v2/projects/${pid}/export`);
    assert.equal(exported.status, 200);
    const archive = new Uint8Array(await exported.arrayBuffer());
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}`)).status, 204, 'the original goes: only the archive is left');

    const id = randomUUID();
    const imported = await fetch(`${d.url}/v2/projects/${id}/import?name=imported`, { method: 'POST', body: archive });
    assert.equal(imported.status, 201, await imported.text());
    assert.equal((await d.api('POST', `/v2/projects/${id}/open`)).status, 201);
    assert.equal((await d.api('POST', `/v2/projects/${id}/nodes/start`, {})).status, 204);
    const nodes = ((await d.api('GET', `/v2/projects/${id}/nodes`)).body as any[]).sort((a, b) => a.name.localeCompare(b.name));
    assert.deepEqual(nodes.map((n) => [n.name, n.status]), [['PC1', 'started'], ['PC2', 'started'], ['SW1', 'started']]);

    const c1 = await connectVpcsConsole('127.0.0.1', nodes[0].console);
    try {
      assert.match(await c1.run('show ip'), /IP\/MASK\s+: 10\.8\.0\.1\/24/, 'the startup script came with the archive');
      const r = await ping(c1, '10.8.0.2', 3, { waitMs: 2000 });
      assert.ok(r.received >= 2, `PC1 pings PC2 in the imported project: ${JSON.stringify(r)}`);
    } finally {
      c1.close();
    }
    await d.api('POST', `/v2/projects/${id}/nodes/stop`, {});
  });
});
