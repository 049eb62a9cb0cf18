// `lab up` with `mgmt:` on a real daemon and Docker: the network is set before the nodes, the
// nodes are reached from the host, a re-run changes nothing, and `lab down` leaves nothing.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { cliEnv, removeTempHome, runBin, tempHome } from '../cli/helpers/cli.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { linksStartingWith } from '../helpers/host-network.js';

const run = promisify(execFile);
const ENV = { EMUCTL_MGMT_RANGE: '198.19.128.0/17', EMUCTL_UDP_PORT_RANGE: '25600-25699', EMUCTL_CONSOLE_PORT_RANGE: '25700-25799' };

describe('lab up with mgmt:', () => {
  let d: TestDaemon;
  const home = tempHome();

  before(async () => {
    d = await startTestDaemon({ env: ENV });
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
    removeTempHome(home);
  });

  it('sets the network before the nodes, the host reaches them, a re-run changes nothing, lab down removes it', async () => {
    const image = await testImage('host');
    const file = join(home, 'lab.yml');
    writeFileSync(file, `name: mgmt-e2e\nmgmt: {ipv6: false}\nnodes:\n  R1: {type: docker, image: "${image}", cmd: "sleep 100000"}\n  R2: {type: docker, image: "${image}", cmd: "sleep 100000"}\nlinks:\n  - [R1:eth0, R2:eth0]\n`);
    const env = cliEnv(home);
    const up = await runBin(['--url', d.url, 'lab', 'up', file, '--json'], env);
    assert.equal(up.code, 0, up.stderr);
    const projectId = JSON.parse(up.stdout).project_id as string;
    const net = (await d.api('GET', `/v2/projects/${projectId}/management`)).body;
    assert.deepEqual(net.ipv6, null);
    const nodes = (await d.api('GET', `/v2/projects/${projectId}/nodes`)).body as { name: string; properties: Record<string, unknown> }[];
    const prefix = net.ipv4.subnet.replace(/0\/24$/, '');
    assert.deepEqual(nodes.map((n) => [n.name, n.properties.mgmt_ipv4]).sort(), [['R1', `${prefix}2/24`], ['R2', `${prefix}3/24`]], 'in file order');
    for (const n of nodes) await run('ping', ['-c', '1', '-W', '5', '-n', String(n.properties.mgmt_ipv4).split('/')[0]]);

    const again = await runBin(['--url', d.url, 'lab', 'up', file, '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).changed, false, again.stdout);

    const bridge = `emum${projectId.replace(/-/g, '').slice(0, 8)}`;
    assert.equal(linksStartingWith(bridge).length, 1);
    const down = await runBin(['--url', d.url, 'lab', 'down', 'mgmt-e2e'], env);
    assert.equal(down.code, 0, down.stderr);
    assert.deepEqual(linksStartingWith(bridge), [], 'lab down removes the bridge');
  });
});
