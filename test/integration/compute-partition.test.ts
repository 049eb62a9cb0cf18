// A partition from a remote compute: reads of a project never wait for a compute call, and while the
// compute is known to be disconnected every call to it fails at once with a 503 naming it; when it
// comes back, calls go through again. The compute is a second real daemon, held at a failpoint
// (a slow compute) or stopped with SIGSTOP (a partition: its sockets stay open, nothing answers).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type ApiAnswer, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '22100-22149', EMUCTL_CONSOLE_PORT_RANGE: '28100-28119' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '22150-22199', EMUCTL_CONSOLE_PORT_RANGE: '28120-28139' };
const HOLD = 'compute.request.hold';

async function timed(call: Promise<ApiAnswer>): Promise<ApiAnswer & { ms: number }> {
  const started = Date.now();
  const answer = await call;
  return { ...answer, ms: Date.now() - started };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) assert.fail(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

describe('a partition from a remote compute', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-partition-'));
  const holdFile = join(tmp, 'compute-failpoints');
  let controller: TestDaemon;
  let remote: TestDaemon;
  let computeId: string;
  let projectId: string;
  let far: any;
  let near: any;
  const connected = async () => (await controller.api('GET', `/v2/computes/${computeId}`)).body.connected as boolean;

  before(async () => {
    writeFileSync(holdFile, '');
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: CONTROLLER_ENV });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { ...COMPUTE_ENV, EMUCTL_FAILPOINTS_FILE: holdFile } });
    const r = await controller.api('POST', '/v2/computes', { name: 'far-away', host: '127.0.0.1', port: remote.port });
    assert.equal(r.status, 201, r.text);
    computeId = r.body.compute_id;
    projectId = await createProject(controller, 'partition');
    far = await createNode(controller, projectId, 'FAR', 'ethernet_switch', { compute_id: computeId });
    near = await createNode(controller, projectId, 'NEAR', 'ethernet_switch');
    await createLink(controller, projectId, [far.node_id, 0], [near.node_id, 0]);
  });
  after(async () => {
    writeFileSync(holdFile, '');
    if (remote) process.kill(remote.pid, 'SIGCONT');
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('reads of the project answer at once while a call to the compute is pending', async () => {
    writeFileSync(holdFile, HOLD);
    const held = remote.waitForLog(/failpoint compute\.request\.hold: holding PUT /);
    const rename = controller.api('PUT', `/v2/projects/${projectId}/nodes/${far.node_id}`, { name: 'FAR-RENAMED' });
    await held;
    for (const path of [`/v2/projects/${projectId}/nodes`, `/v2/projects/${projectId}/nodes/${far.node_id}`, `/v2/projects/${projectId}/links`, `/v2/projects/${projectId}`, `/v2/computes/${computeId}`]) {
      const r = await timed(controller.api('GET', path));
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      assert.ok(r.ms < 3000, `GET ${path} answered in ${r.ms} ms while a call to the compute was held`);
    }
    const listed = (await controller.api('GET', `/v2/projects/${projectId}/nodes`)).body.map((n: any) => n.name).sort();
    assert.deepEqual(listed, ['FAR', 'NEAR'], 'the rename shows once the compute has taken it');
    writeFileSync(holdFile, '');
    const renamed = await rename;
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'FAR-RENAMED');
  });

  it('once the compute is known disconnected, calls to it fail at once with 503 naming it; reads still answer', { timeout: 120_000 }, async () => {
    process.kill(remote.pid, 'SIGSTOP');
    const tookMs = await until('the controller marks the stopped compute connected: false', async () => !(await connected()));
    process.stdout.write(`# compute stopped (SIGSTOP) → connected: false after ${tookMs} ms\n`);
    const calls: [string, string, unknown][] = [
      ['POST', `/v2/projects/${projectId}/nodes/${far.node_id}/start`, {}],
      ['POST', `/v2/projects/${projectId}/nodes/${far.node_id}/stop`, {}],
      ['PUT', `/v2/projects/${projectId}/nodes/${far.node_id}`, { name: 'FAR2' }],
      ['POST', `/v2/projects/${projectId}/nodes`, { name: 'NEW', node_type: 'ethernet_hub', compute_id: computeId }],
      ['GET', `/v2/computes/${computeId}/network/interfaces`, undefined],
    ];
    let slowest = 0;
    for (const [method, path, body] of calls) {
      const r = await timed(controller.api(method, path, body));
      slowest = Math.max(slowest, r.ms);
      assert.equal(r.status, 503, `${method} ${path}: ${r.status} ${r.text}`);
      assert.deepEqual(Object.keys(r.body).sort(), ['message', 'status']);
      assert.equal(r.body.status, 503);
      assert.match(r.body.message, new RegExp(`^compute far-away \\(${computeId}\\) is not connected`));
      assert.ok(r.ms < 2000, `${method} ${path} failed fast (${r.ms} ms)`);
    }
    process.stdout.write(`# calls to the disconnected compute: 503 within ${slowest} ms\n`);
    const nodes = await timed(controller.api('GET', `/v2/projects/${projectId}/nodes`));
    assert.equal(nodes.status, 200);
    assert.ok(nodes.ms < 2000, `the node list answers (${nodes.ms} ms)`);
    assert.deepEqual(nodes.body.map((n: any) => n.name).sort(), ['FAR-RENAMED', 'NEAR'], 'nothing half-made by the refused calls');
  });

  it('a call under way when the compute turns disconnected ends with that 503, not after its time-out', { timeout: 120_000 }, async () => {
    process.kill(remote.pid, 'SIGCONT');
    await until('the compute reconnects', connected);
    process.kill(remote.pid, 'SIGSTOP');
    const stoppedAt = Date.now();
    const r = await controller.api('POST', `/v2/projects/${projectId}/nodes/${far.node_id}/start`, {});
    const ms = Date.now() - stoppedAt;
    process.stdout.write(`# a call under way when the compute stopped: 503 after ${ms} ms\n`);
    assert.equal(r.status, 503, r.text);
    assert.match(r.body.message, /^compute far-away .* is not connected/);
    assert.ok(ms < 20_000, `ended when the compute was found gone (${ms} ms), not after the 30 s time-out`);
  });

  it('when the compute comes back, calls go through again', { timeout: 120_000 }, async () => {
    process.kill(remote.pid, 'SIGCONT');
    const tookMs = await until('the compute reconnects', connected);
    process.stdout.write(`# compute resumed (SIGCONT) → connected: true after ${tookMs} ms\n`);
    const start = await controller.api('POST', `/v2/projects/${projectId}/nodes/${far.node_id}/start`, {});
    assert.equal(start.status, 200, start.text);
    const rename = await controller.api('PUT', `/v2/projects/${projectId}/nodes/${far.node_id}`, { name: 'FAR3' });
    assert.equal(rename.status, 200, rename.text);
    assert.equal((await controller.api('GET', `/v2/computes/${computeId}/network/interfaces`)).status, 200);
    const hub = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'NEW', node_type: 'ethernet_hub', compute_id: computeId });
    assert.equal(hub.status, 201, hub.text);
  });
});
