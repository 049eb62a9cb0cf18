// The calls gns3fy (GNS3's Python client) makes, in its order, against a real daemon: connector,
// version, templates, project, nodes from templates, link, start, Project.get() with stats, close, delete.
// The lab is real: the two VPCS made from the template ping each other.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connectVpcsConsole, ping, setIp } from '../../src/client/vpcs-console.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '22570-22619', EMUCTL_CONSOLE_PORT_RANGE: '27580-27589' };

describe('a gns3fy session against the daemon', () => {
  let d: TestDaemon;
  /** gns3fy's Gns3Connector.http_call: JSON in, raise on an HTTP error. */
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await d.api(method, `/v2${path}`, body);
    assert.ok(r.status < 400, `${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };

  before(async () => {
    d = await startTestDaemon({ env: ENV });
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it('connector → version → templates → project → nodes from templates → link → start → get() with stats → close → delete', async () => {
    const version = (await call('GET', '/version')).body;
    assert.equal(typeof version.version, 'string');

    // connector.get_template(name=…): the list, filtered by name.
    const templates = (await call('GET', '/templates')).body as any[];
    const template = (name: string) => templates.find((t) => t.name === name);
    assert.ok(template('VPCS') && template('Ethernet switch'));

    // Project(name=…, connector=…).create()
    const project = (await call('POST', '/projects', { name: 'gns3fy-lab' })).body;
    assert.equal(project.status, 'opened');
    const pid = project.project_id;

    // Node(project_id=…, connector=…, template=…, name=…).create(): POST the template, then update() with the cached attributes.
    const createNode = async (templateName: string, name: string, nodeType: string) => {
      const made = await call('POST', `/projects/${pid}/templates/${template(templateName).template_id}`, { x: 0, y: 0, compute_id: 'local' });
      assert.equal(made.status, 201);
      const updated = await call('PUT', `/projects/${pid}/nodes/${made.body.node_id}`, { name, compute_id: 'local', node_type: nodeType });
      assert.equal(updated.body.name, name);
      return updated.body;
    };
    const pc1 = await createNode('VPCS', 'PC-1', 'vpcs');
    const pc2 = await createNode('VPCS', 'PC-2', 'vpcs');
    const sw = await createNode('Ethernet switch', 'SW-1', 'ethernet_switch');

    // Link(project_id=…, connector=…, nodes=[…]).create()
    for (const [pc, port] of [[pc1, 0], [pc2, 1]] as const) {
      const link = await call('POST', `/projects/${pid}/links`, {
        project_id: pid,
        link_type: 'ethernet',
        nodes: [{ node_id: pc.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: port }],
      });
      assert.equal(link.status, 201);
    }

    // project.start_nodes()
    assert.equal((await call('POST', `/projects/${pid}/nodes/start`)).status, 204);

    // project.get(): the project, its stats (and snapshots/drawings when there are some), its nodes and links.
    assert.equal((await call('GET', `/projects/${pid}`)).body.name, 'gns3fy-lab');
    const stats = (await call('GET', `/projects/${pid}/stats`)).body;
    assert.deepEqual(stats, { nodes: 3, links: 2, drawings: 0, snapshots: 0 });
    const nodes = (await call('GET', `/projects/${pid}/nodes`)).body as any[];
    assert.ok(nodes.every((n) => n.status === 'started'), JSON.stringify(nodes.map((n) => [n.name, n.status])));
    assert.equal((await call('GET', `/projects/${pid}/links`)).body.length, 2);

    // The lab passes traffic.
    const c1 = await connectVpcsConsole('127.0.0.1', pc1.console);
    const c2 = await connectVpcsConsole('127.0.0.1', pc2.console);
    try {
      assert.equal(c1.name, 'PC-1');
      await setIp(c1, '10.7.0.1/24');
      await setIp(c2, '10.7.0.2/24');
      const r = await ping(c1, '10.7.0.2', 3, { waitMs: 2000 });
      assert.ok(r.received >= 2, `PC-1 pings PC-2: ${JSON.stringify(r)}`);
    } finally {
      c1.close();
      c2.close();
    }

    // project.close(): gns3fy marks it closed only on a 204.
    const closed = await call('POST', `/projects/${pid}/close`);
    assert.equal(closed.status, 204);
    assert.equal(closed.text, '');
    assert.equal((await call('GET', `/projects/${pid}`)).body.status, 'closed');

    // project.delete()
    assert.equal((await call('DELETE', `/projects/${pid}`)).status, 204);
    assert.equal((await d.api('GET', `/v2/projects/${pid}`)).status, 404);
  });
});
