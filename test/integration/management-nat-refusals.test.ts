// A management network's route out refused before anything is made: bad `nat` values are a 400 on
// the controller's and the compute's route, and a compute with EMUCTL_MGMT_NAT=false answers 409.
// Moved out of management-isolation.test.ts (which runs alone, for it compares host-wide state):
// nothing here makes a network, a rule or a node, so it runs beside other files. It keeps that
// file's port ranges (the two never run at the same time: a serial file runs after every group).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemons, type TestDaemon } from '../helpers/daemon.js';
import { linksStartingWith } from '../helpers/host-network.js';
import { createProject } from '../helpers/lab.js';

const ENV = { EMUCTL_MGMT_RANGE: '198.19.64.0/18', EMUCTL_UDP_PORT_RANGE: '21200-21224', EMUCTL_CONSOLE_PORT_RANGE: '21225-21249' };

const short = (id: string) => id.replace(/-/g, '').slice(0, 8);

describe('management network route out: bad values and a compute that forbids it', () => {
  let d: TestDaemon;
  let strict: TestDaemon;

  before(async () => {
    // At the same time; if one fails, the other is stopped.
    [d, strict] = await startTestDaemons({ env: ENV }, { env: { ...ENV, EMUCTL_MGMT_NAT: 'false' } });
  });
  after(async () => {
    await Promise.all([d?.stop(), strict?.stop()]);
    if (d) removeHome(d.home);
    if (strict) removeHome(strict.home);
  });

  it('bad nat values are a 400; a compute that forbids a route out answers 409', async () => {
    const p = await createProject(d, 'mgmt-iso-bad');
    for (const nat of ['yes', 1, null]) {
      const r = await d.api('PUT', `/v2/projects/${p}/management`, { nat });
      assert.equal(r.status, 400, `${JSON.stringify(nat)}: ${r.text}`);
      assert.equal(typeof r.body.message, 'string');
    }
    const compute = await d.api('PUT', `/v2/compute/projects/${p}/management`, { ipv4: { subnet: '198.19.127.0/24', gateway: '198.19.127.1' }, ipv6: null, interface: 'mgmt0', nat: 'on' });
    assert.equal(compute.status, 400, compute.text);
    assert.equal((await d.api('DELETE', `/v2/projects/${p}`)).status, 204);

    // The compute's own route, as a remote controller calls it.
    const q = '5e1f0c2a-4b7d-4e21-9c3a-7d2f1b0e9a11';
    assert.equal((await strict.api('POST', '/v2/compute/projects', { project_id: q, name: 'mgmt-iso-strict' })).status, 201);
    const refused = await strict.api('PUT', `/v2/compute/projects/${q}/management`, { ipv4: { subnet: '198.19.127.0/24', gateway: '198.19.127.1' }, ipv6: null, interface: 'mgmt0', nat: true });
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.body.message, /mgmt_nat/);
    assert.deepEqual(linksStartingWith(`emum${short(q)}`), [], 'nothing was made');
  });
});
