// VPCS nodes the daemon starts are confined (native/vpcs-confine.c): the console listens on the
// daemon's address and its `!` runs nothing; without the shim a start is a 409 saying how to build it;
// vpcs_unconfined starts VPCS bare, with a warning at daemon start.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connectVpcsConsole } from '../../../../src/client/vpcs-console.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { ipv4Sockets } from '../../../kinds/vpcs/vpcs-helpers.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '23300-23349', EMUCTL_CONSOLE_PORT_RANGE: '27800-27819' };

describe('end to end: confined VPCS nodes', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-e2e-vpcs-confine-'));
  const daemons: TestDaemon[] = [];
  after(async () => {
    await Promise.allSettled(daemons.map((d) => d.stop()));
    removeHome(tmp);
  });

  async function daemon(name: string, env: NodeJS.ProcessEnv = {}): Promise<TestDaemon> {
    const d = await startTestDaemon({ home: join(tmp, name), env: { ...ENV, ...env } });
    daemons.push(d);
    return d;
  }

  async function vpcsNode(d: TestDaemon): Promise<{ path: string; console: number }> {
    const pid = randomUUID();
    assert.equal((await d.api('POST', '/v2/compute/projects', { project_id: pid, name: 'confine' })).status, 201);
    const created = await d.api('POST', `/v2/compute/projects/${pid}/vpcs/nodes`, { name: 'PC1' });
    assert.equal(created.status, 201, created.text);
    return { path: `/v2/compute/projects/${pid}/vpcs/nodes/${created.body.node_id}`, console: created.body.console };
  }

  /** Types `! touch marker` at the console, then a command whose answer shows the first was done. */
  async function bang(port: number, marker: string): Promise<void> {
    const console = await connectVpcsConsole('127.0.0.1', port);
    try {
      await console.run(`! touch ${marker}`);
      await console.run('echo done');
    } finally {
      console.close();
    }
  }

  const listening = (port: number) => ipv4Sockets('tcp').filter((s) => s.port === port).map((s) => s.local);

  it('default: the console listens on the daemon address only and `!` runs nothing', async () => {
    const d = await daemon('confined');
    const node = await vpcsNode(d);
    const started = await d.api('POST', `${node.path}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.deepEqual(listening(node.console), [`127.0.0.1:${node.console}`]);
    const marker = join(tmp, 'marker-confined');
    await bang(node.console, marker);
    assert.equal(existsSync(marker), false);
    assert.equal((await d.api('POST', `${node.path}/stop`, {})).status, 204);
  });

  it('a daemon on another address (127.0.0.3): the console listens there, not on 127.0.0.1 or 0.0.0.0', async () => {
    const d = await startTestDaemon({ home: join(tmp, 'other-host'), flags: { host: '127.0.0.3' }, env: ENV });
    daemons.push(d);
    const node = await vpcsNode(d);
    const started = await d.api('POST', `${node.path}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.deepEqual(listening(node.console), [`127.0.0.3:${node.console}`]);
    assert.equal((await d.api('POST', `${node.path}/stop`, {})).status, 204);
  });

  it('without the shim, start is a 409 saying how to build it, and nothing listens', async () => {
    const d = await daemon('no-shim', { EMUCTL_VPCS_CONFINE_SHIM: join(tmp, 'absent', 'vpcs-confine.so') });
    const node = await vpcsNode(d);
    const started = await d.api('POST', `${node.path}/start`, {});
    assert.equal(started.status, 409, started.text);
    assert.deepEqual(Object.keys(started.body).sort(), ['message', 'status']);
    assert.match(started.body.message, /vpcs confinement shim not built .*scripts\/setup\.sh/);
    assert.equal((await d.api('GET', node.path)).body.status, 'stopped');
    assert.deepEqual(listening(node.console), []);
  });

  it('vpcs_unconfined: a warning at start, VPCS binds 0.0.0.0 and `!` runs (what the confinement prevents)', async () => {
    const d = await daemon('unconfined', { EMUCTL_VPCS_UNCONFINED: '1' });
    assert.match(d.log(), /vpcs_unconfined is on/);
    const node = await vpcsNode(d);
    const started = await d.api('POST', `${node.path}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.deepEqual(listening(node.console), [`0.0.0.0:${node.console}`]);
    const marker = join(tmp, 'marker-unconfined');
    await bang(node.console, marker);
    assert.ok(existsSync(marker));
    assert.equal((await d.api('POST', `${node.path}/stop`, {})).status, 204);
  });
});
