// VPCS 0.5b2 runs a startup script's `! command` lines on the host, as the daemon's user. A
// .gns3project carrying such a script imports and opens, but its node refuses to start (409 naming
// the line) and the command never runs; a client sending such a script gets a 400.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { rawZip } from '../../../helpers/raw-zip.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '23200-23249', EMUCTL_CONSOLE_PORT_RANGE: '27780-27789' };

describe('end to end: VPCS startup scripts from an archive and from clients', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-e2e-vpcs-script-'));
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ home: join(tmp, 'home'), env: ENV });
  });
  after(async () => {
    await d?.stop();
    removeHome(tmp);
  });

  it('an imported script with a host command: the project opens, start answers 409 naming the line, the command never runs; a fixed script starts', async () => {
    const marker = join(tmp, 'pwned');
    const nodeId = randomUUID();
    const topology = {
      name: 'bang', project_id: randomUUID(), type: 'topology', version: '2.2.42', revision: 9, auto_start: false,
      topology: { computes: [], links: [], drawings: [], nodes: [{ compute_id: 'local', node_id: nodeId, node_type: 'vpcs', name: 'PC1', console_type: 'telnet', x: 0, y: 0, z: 1, properties: {} }] },
    };
    const archive = rawZip([
      { name: 'project.gns3', data: JSON.stringify(topology) },
      { name: `project-files/vpcs/${nodeId}/startup.vpc`, data: `set pcname PC1\n! touch ${marker}\nip 10.0.0.1/24\n` },
    ]);
    const id = randomUUID();
    const imported = await fetch(`${d.url}/v2/projects/${id}/import`, { method: 'POST', body: new Uint8Array(archive) });
    assert.equal(imported.status, 201, await imported.text());
    assert.equal((await d.api('POST', `/v2/projects/${id}/open`)).status, 201);
    const [node] = (await d.api('GET', `/v2/projects/${id}/nodes`)).body;
    const start = await d.api('POST', `/v2/projects/${id}/nodes/${node.node_id}/start`, {});
    assert.equal(start.status, 409, start.text);
    assert.ok(start.body.message.includes(`! touch ${marker}`), start.text);
    assert.equal(existsSync(marker), false);

    const fixed = await fetch(`${d.url}/v2/projects/${id}/nodes/${node.node_id}/files/startup.vpc`, { method: 'POST', body: 'set pcname PC1\nip 10.0.0.1/24\n' });
    assert.ok(fixed.ok, await fixed.text());
    const started = await d.api('POST', `/v2/projects/${id}/nodes/${node.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal((await d.api('POST', `/v2/projects/${id}/nodes/${node.node_id}/stop`, {})).status, 200);
    assert.equal((await d.api('DELETE', `/v2/projects/${id}`)).status, 204);
  });

  it('a client sending a script with a refused command gets a 400 naming the line, at create and at update', async () => {
    const pid = randomUUID();
    assert.equal((await d.api('POST', '/v2/compute/projects', { project_id: pid, name: 'scripts' })).status, 201);
    const created = await d.api('POST', `/v2/compute/projects/${pid}/vpcs/nodes`, { name: 'PC1', startup_script: 'save /tmp/x\n' });
    assert.equal(created.status, 400, created.text);
    assert.match(created.body.message, /save \/tmp\/x/);
    const ok = await d.api('POST', `/v2/compute/projects/${pid}/vpcs/nodes`, { name: 'PC2', startup_script: 'ip 10.0.0.2/24\n' });
    assert.equal(ok.status, 201, ok.text);
    const updated = await d.api('PUT', `/v2/compute/projects/${pid}/vpcs/nodes/${ok.body.node_id}`, { startup_script: 'load /etc/shadow\n' });
    assert.equal(updated.status, 400, updated.text);
    assert.match(updated.body.message, /load \/etc\/shadow/);
    assert.equal((await d.api('DELETE', `/v2/compute/projects/${pid}`)).status, 204);
  });
});
