import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { ethernetFrame, udpEndpoint, type UdpEndpoint } from '../helpers/udp.js';

const MAC_A = '02:00:00:00:00:0a';
const MAC_B = '02:00:00:00:00:0b';

describe('daemon: the dataplane worker is supervised', () => {
  let d: TestDaemon;
  const endpoints: UdpEndpoint[] = [];

  before(async () => {
    // The failpoint kills the dataplane worker on its first stats call.
    d = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '22500-22519', EMUCTL_FAILPOINTS: 'dataplane.worker.crash=1' } });
  });
  after(async () => {
    for (const e of endpoints) await e.close();
    await d.stop();
    removeHome(d.home);
  });

  it('logs the death, answers 503 until the worker is back, then traffic flows again through the same NIOs', async () => {
    const projectId = randomUUID();
    const base = `/v2/compute/projects/${projectId}`;
    assert.equal((await d.api('POST', '/v2/compute/projects', { project_id: projectId, name: 'restart' })).status, 201);
    const sw = await d.api('POST', `${base}/ethernet_switch/nodes`, { name: 'SW1' });
    assert.equal(sw.status, 201);
    const node = `${base}/ethernet_switch/nodes/${sw.body.node_id}`;
    const a = await udpEndpoint();
    const b = await udpEndpoint();
    endpoints.push(a, b);
    const lport = async () => (await d.api('POST', `${base}/ports/udp`, {})).body.udp_port as number;
    const [la, lb] = [await lport(), await lport()];
    assert.equal((await d.api('POST', `${node}/adapters/0/ports/0/nio`, { type: 'nio_udp', lport: la, rhost: '127.0.0.1', rport: a.port })).status, 201);
    assert.equal((await d.api('POST', `${node}/adapters/0/ports/1/nio`, { type: 'nio_udp', lport: lb, rhost: '127.0.0.1', rport: b.port })).status, 201);
    await a.send(ethernetFrame(MAC_B, MAC_A), la);
    await b.next();

    const crashed = await d.api('GET', `${node}/stats`);
    assert.equal(crashed.status, 503, crashed.text);
    assert.match(crashed.body.message, /dataplane worker crashed .* restarting: retry shortly/);
    assert.equal(crashed.body.status, 503);
    assert.match(d.log(), /ERROR dataplane worker died: failpoint dataplane\.worker\.crash: simulated dataplane worker crash; restarting .*rebuilding 1 nodes, 2 NIOs/);

    const deadline = Date.now() + 10_000;
    let stats = crashed;
    while (stats.status === 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      stats = await d.api('GET', `${node}/stats`);
    }
    assert.equal(stats.status, 200, stats.text);
    assert.match(d.log(), /INFO  dataplane worker restarted \((js|native) engine\): 1 nodes, 2 NIOs, 0 captures rebuilt/);

    const frame = ethernetFrame(MAC_A, MAC_B, 0x88b5, Buffer.from('after the restart'));
    await b.send(frame, lb);
    assert.deepEqual(await a.next(), frame, 'frames flow again');
    const port1 = stats.body.find((p: { port_number: number }) => p.port_number === 1);
    assert.equal(port1.nio.lport, lb, 'the compute still shows the NIO');
  });
});
