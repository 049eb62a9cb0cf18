import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

const CONSOLE_RANGE: [number, number] = [27600, 27619];
const GNS3_STYLE = 'font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;';

describe('small GNS3 2.2.42 behaviours GNS3 clients rely on', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon({ env: { EMUCTL_CONSOLE_PORT_RANGE: CONSOLE_RANGE.join('-'), EMUCTL_UDP_PORT_RANGE: '20500-20549' } })));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('/v2/version and /v2/compute/version say local: false (GNS3 says so of a server its GUI did not start)', async () => {
    assert.equal((await d.api('GET', '/v2/version')).body.local, false);
    assert.equal((await d.api('GET', '/v2/compute/version')).body.local, false);
  });

  it('a VPCS made through the API without a symbol gets :/symbols/computer.svg, as in GNS3', async () => {
    const pid = await createProject(d, 'symbols');
    const pc = await createNode(d, pid, 'PC1', 'vpcs');
    assert.equal(pc.symbol, ':/symbols/computer.svg');
    const own = await createNode(d, pid, 'PC2', 'vpcs', { symbol: ':/symbols/vpcs_guest.svg' });
    assert.equal(own.symbol, ':/symbols/vpcs_guest.svg', 'a symbol the client gives is kept');
  });

  it('a switch holds a console port (console_type none), freed when it goes; a taken one is a 409', async () => {
    const pid = await createProject(d, 'switch-console');
    const a = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const b = await createNode(d, pid, 'SW2', 'ethernet_switch');
    for (const sw of [a, b]) {
      assert.equal(sw.console_type, 'none');
      assert.ok(Number.isInteger(sw.console) && sw.console >= CONSOLE_RANGE[0] && sw.console <= CONSOLE_RANGE[1], `console ${sw.console} in the console range`);
    }
    assert.notEqual(a.console, b.console);
    const compute = (await d.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${a.node_id}`)).body;
    assert.deepEqual([compute.console, compute.console_type], [a.console, 'none']);
    const taken = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'SW3', node_type: 'ethernet_switch', console: a.console });
    assert.equal(taken.status, 409, taken.text);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${a.node_id}`)).status, 204);
    const reused = await createNode(d, pid, 'SW4', 'ethernet_switch', { console: a.console });
    assert.equal(reused.console, a.console, 'the deleted switch gave its port back');
    const hub = await createNode(d, pid, 'HUB1', 'ethernet_hub');
    assert.deepEqual([hub.console, hub.console_type], [null, 'none'], 'a hub has none, as in GNS3');
  });

  it('a project-wide nodes/stop stops the VPCS and leaves the switch started, as GNS3 does', { timeout: 60_000 }, async () => {
    const pid = await createProject(d, 'stop-all');
    const sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const pc = await createNode(d, pid, 'PC1', 'vpcs');
    await createLink(d, pid, [sw.node_id, 0], [pc.node_id, 0]);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/start`, {})).status, 204);
    const status = async () => Object.fromEntries((await d.api('GET', `/v2/projects/${pid}/nodes`)).body.map((n: any) => [n.name, n.status]));
    assert.deepEqual(await status(), { SW1: 'started', PC1: 'started' });
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/stop`, {})).status, 204);
    assert.deepEqual(await status(), { SW1: 'started', PC1: 'stopped' });
  });

  it('GET nodes and links of a project just imported (still closed) answer what the archive holds, nodes stopped', async () => {
    const pid = await createProject(d, 'to-export');
    const sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const hub = await createNode(d, pid, 'HUB1', 'ethernet_hub');
    await createLink(d, pid, [sw.node_id, 3], [hub.node_id, 1]);
    await d.api('POST', `/v2/projects/${pid}/close`, {});
    const archive = Buffer.from(await (await fetch(`${d.url}/v2/projects/${pid}/export`)).arrayBuffer());
    const newId = randomUUID();
    const imported = await fetch(`${d.url}/v2/projects/${newId}/import?name=imported`, { method: 'POST', body: new Uint8Array(archive) });
    assert.equal(imported.status, 201, await imported.text());
    assert.equal((await d.api('GET', `/v2/projects/${newId}`)).body.status, 'closed');

    const nodes = await d.api('GET', `/v2/projects/${newId}/nodes`);
    assert.equal(nodes.status, 200, nodes.text);
    assert.deepEqual(nodes.body.map((n: any) => [n.name, n.node_type, n.status, n.project_id, n.compute_id]).sort(), [
      ['HUB1', 'ethernet_hub', 'stopped', newId, 'local'],
      ['SW1', 'ethernet_switch', 'stopped', newId, 'local'],
    ]);
    const swCopy = nodes.body.find((n: any) => n.name === 'SW1');
    assert.equal(swCopy.ports.length, 8);
    assert.deepEqual([swCopy.ports[0].name, swCopy.ports[0].short_name], ['Ethernet0', 'e0']);
    assert.equal(swCopy.console_host, '127.0.0.1');

    const links = await d.api('GET', `/v2/projects/${newId}/links`);
    assert.equal(links.status, 200, links.text);
    assert.equal(links.body.length, 1);
    const [link] = links.body;
    assert.equal(link.capturing, false);
    assert.deepEqual(link.nodes.map((e: any) => [e.node_id === swCopy.node_id, e.port_number, e.label]), [
      [true, 3, { text: '0/3', style: GNS3_STYLE }],
      [false, 1, { text: '0/1', style: GNS3_STYLE }],
    ]);

    assert.equal((await d.api('POST', `/v2/projects/${newId}/open`, {})).status, 201);
    const opened = (await d.api('GET', `/v2/projects/${newId}/nodes`)).body;
    assert.deepEqual(opened.map((n: any) => n.node_id).sort(), nodes.body.map((n: any) => n.node_id).sort(), 'the same nodes once opened');
    assert.equal((await d.api('GET', `/v2/projects/${newId}/links`)).body[0].link_id, link.link_id);
  });
});
