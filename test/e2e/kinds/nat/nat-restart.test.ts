import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { VpcsConsole } from '../../../../src/client/vpcs-console.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { freeTestSubnet } from '../../../helpers/host-network.js';
import { LEASED, leasedVpcsBehindNat } from '../../../helpers/nat-lab.js';

const run = promisify(execFile);

describe('NAT node across a dataplane worker crash', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-natrestart-'));
  let d: TestDaemon;
  const consoles: VpcsConsole[] = [];

  before(async () => {
    // The failpoint kills the dataplane worker on its first stats call.
    d = await startTestDaemon({ home, env: { EMUCTL_NAT_SUBNET: (await freeTestSubnet()).subnet, EMUCTL_UDP_PORT_RANGE: '30900-30949', EMUCTL_CONSOLE_PORT_RANGE: '25450-25469', EMUCTL_FAILPOINTS: 'dataplane.worker.crash=1' } });
  });
  after(async () => {
    for (const c of consoles) c.close();
    await d.stop();
    removeHome(home);
  });

  it('the TAP the restarted worker makes again joins the bridge again, and the VPCS leases again', async () => {
    const { projectId, nat, console: c } = await leasedVpcsBehindNat(d, 'nat-restart');
    consoles.push(c);

    const tap = `ent${nat.node_id.replace(/-/g, '').slice(0, 8)}0`;
    const crashed = await d.api('GET', `/v2/compute/projects/${projectId}/nat/nodes/${nat.node_id}/stats`);
    assert.equal(crashed.status, 503, crashed.text);
    await d.waitForLog(/dataplane worker restarted/);
    const deadline = Date.now() + 10_000;
    let shown = '';
    while (Date.now() < deadline) {
      shown = (await run('ip', ['-o', 'link', 'show', 'dev', tap]).catch(() => ({ stdout: '' }))).stdout;
      if (shown.includes(`master emunat${d.pid}`)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(shown, new RegExp(`master emunat${d.pid}`), 'the new TAP is in the bridge');
    assert.match(await c.run('ip dhcp', { timeoutMs: 30_000 }), LEASED, 'a lease through the rebuilt path');
  });
});
