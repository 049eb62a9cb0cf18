// The console websocket (GNS3's /v2/projects/{p}/nodes/{n}/console/ws) against real VPCS nodes: on the
// daemon's own compute, and relayed by the controller to a second daemon that is a compute with auth.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openConsoleClient, refusedHandshake, type ConsoleClient } from '../helpers/console-ws.js';
import { createNode, createProject } from '../helpers/lab.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '23200-23249', EMUCTL_CONSOLE_PORT_RANGE: '23400-23409' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '23250-23299', EMUCTL_CONSOLE_PORT_RANGE: '23410-23419', EMUCTL_AUTH_USER: 'relay', EMUCTL_AUTH_PASSWORD: 'c0mpute' };
const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

const wsUrl = (d: TestDaemon, path: string) => `${d.url.replace(/^http/, 'ws')}${path}`;
const consolePath = (projectId: string, nodeId: string) => `/v2/projects/${projectId}/nodes/${nodeId}/console/ws`;

/** Types a VPCS command and waits for the answer and the next prompt. */
async function type(client: ConsoleClient, line: string, answer: RegExp, prompt: RegExp): Promise<void> {
  const from = client.text().length;
  client.ws.send(Buffer.from(`${line}\n`));
  await client.waitFor(new RegExp(`${answer.source}[\\s\\S]*${prompt.source}`), from);
}

/**
 * Brings a fresh console to a known prompt, as the CLI's VPCS client does: VPCS may still be printing
 * its banner and startup script and drops what is typed meanwhile, so echo a marker until it comes back.
 */
async function sync(client: ConsoleClient, prompt: RegExp): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const marker = `sync-${attempt}-${Date.now()}`;
    const from = client.text().length;
    client.ws.send(Buffer.from(`echo ${marker}\n`));
    try {
      return await client.waitFor(new RegExp(`\\n${marker}\\r?\\n[\\s\\S]*${prompt.source}`), from, 3000);
    } catch (err) {
      if (attempt === 5) throw err;
    }
  }
}

/** Opens the console, sets an address, reads it back, closes; then a second client finds the address and the prompt. */
async function useConsoleTwice(url: string, name: string, address: string, headers: Record<string, string> = {}): Promise<void> {
  const prompt = new RegExp(`${name}> ?$`);
  const first = await openConsoleClient(url, headers);
  try {
    await sync(first, prompt);
    await type(first, `ip ${address}/24`, new RegExp(` : ${address.replace(/\./g, '\\.')} 255\\.255\\.255\\.0`), prompt);
    assert.equal(first.textFrames(), 0, 'the console answers in binary frames, as GNS3 does');
  } finally {
    await first.close();
  }

  const second = await openConsoleClient(url, headers);
  try {
    await sync(second, prompt);
    // A text frame is typed as its UTF-8 bytes, as GNS3 does.
    second.ws.send('show ip\n');
    await second.waitFor(new RegExp(`IP/MASK +: ${address.replace(/\./g, '\\.')}/24[\\s\\S]*${prompt.source}`));
  } finally {
    await second.close();
  }
}

describe('console websocket on the daemon\'s own compute', () => {
  let d: TestDaemon;
  let pid: string;
  let pc1: any;

  before(async () => {
    d = await startTestDaemon({ env: CONTROLLER_ENV });
    pid = await createProject(d, 'console-ws');
    pc1 = await createNode(d, pid, 'PC1', 'vpcs');
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it('a stopped node is a 409 before the upgrade, with the route in X-Route', async () => {
    const refused = await refusedHandshake(wsUrl(d, consolePath(pid, pc1.node_id)));
    assert.equal(refused.status, 409);
    assert.match(refused.body.message, /PC1 is not started/);
    assert.equal(refused.body.status, 409);
    assert.equal(refused.route, '/v2/projects/{project_id}/nodes/{node_id}/console/ws');
  });

  it('a started VPCS: binary frames both ways through the controller route; closing frees the console for the next client', { timeout: 90_000 }, async () => {
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${pc1.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    await useConsoleTwice(wsUrl(d, consolePath(pid, pc1.node_id)), 'PC1', '198.18.0.1');
  });

  it('the compute route /v2/compute/projects/{p}/vpcs/nodes/{n}/console/ws reaches the same console', { timeout: 60_000 }, async () => {
    const client = await openConsoleClient(wsUrl(d, `/v2/compute/projects/${pid}/vpcs/nodes/${pc1.node_id}/console/ws`));
    await sync(client, /PC1> ?$/);
    client.ws.send('show ip\n');
    await client.waitFor(/IP\/MASK +: 198\.18\.0\.1\/24[\s\S]*PC1> ?$/);
    await client.close();
  });

  it('console reset, as the GUI sends it (Control > Reset all console connections): 204, the node\'s websockets closed, the console usable again', { timeout: 90_000 }, async () => {
    const viaController = await openConsoleClient(wsUrl(d, consolePath(pid, pc1.node_id)));
    const viaCompute = await openConsoleClient(wsUrl(d, `/v2/compute/projects/${pid}/vpcs/nodes/${pc1.node_id}/console/ws`));
    const closedCodes = [viaController, viaCompute].map((c) => new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code))));
    const one = await d.api('POST', `/v2/projects/${pid}/nodes/${pc1.node_id}/console/reset`, {});
    assert.equal(one.status, 204, one.text);
    assert.equal(one.text, '');
    assert.deepEqual(await Promise.all(closedCodes), [1000, 1000]);

    const again = await openConsoleClient(wsUrl(d, consolePath(pid, pc1.node_id)));
    await sync(again, /PC1> ?$/);
    const closed = new Promise<number>((resolve) => again.ws.once('close', (code) => resolve(code)));
    const all = await d.api('POST', `/v2/projects/${pid}/nodes/console/reset`, {});
    assert.equal(all.status, 204, all.text);
    assert.equal(await closed, 1000);

    const onCompute = await openConsoleClient(wsUrl(d, consolePath(pid, pc1.node_id)));
    const closedOnCompute = new Promise<number>((resolve) => onCompute.ws.once('close', (code) => resolve(code)));
    const viaComputeRoute = await d.api('POST', `/v2/compute/projects/${pid}/vpcs/nodes/${pc1.node_id}/console/reset`, {});
    assert.equal(viaComputeRoute.status, 204, viaComputeRoute.text);
    assert.equal(await closedOnCompute, 1000);

    const unknown = await d.api('POST', `/v2/projects/${pid}/nodes/00000000-0000-4000-8000-000000000000/console/reset`, {});
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.status, 404);
    const unknownOnCompute = await d.api('POST', `/v2/compute/projects/${pid}/vpcs/nodes/00000000-0000-4000-8000-000000000000/console/reset`, {});
    assert.equal(unknownOnCompute.status, 404);
  });

  it('a node without a telnet console (a switch) is a 409; a plain GET is a 400; an unknown node a 404', async () => {
    const sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const refused = await refusedHandshake(wsUrl(d, consolePath(pid, sw.node_id)));
    assert.equal(refused.status, 409);
    assert.match(refused.body.message, /SW1 console type is not telnet/);
    const plain = await d.api('GET', consolePath(pid, pc1.node_id));
    assert.equal(plain.status, 400);
    assert.match(plain.body.message, /websocket route/);
    const unknown = await refusedHandshake(wsUrl(d, consolePath(pid, '00000000-0000-4000-8000-000000000000')));
    assert.equal(unknown.status, 404);
  });

  it('the console closing (the node stops) closes the websocket', { timeout: 60_000 }, async () => {
    const client = await openConsoleClient(wsUrl(d, consolePath(pid, pc1.node_id)));
    const closed = new Promise<number>((resolve) => client.ws.once('close', (code) => resolve(code)));
    const stopped = await d.api('POST', `/v2/projects/${pid}/nodes/${pc1.node_id}/stop`, {});
    assert.equal(stopped.status, 200, stopped.text);
    assert.equal(await closed, 1000);
  });

  it('a daemon stopping with a console open closes it (1001, going away) and exits at once, not after the kill timeout', { timeout: 60_000 }, async () => {
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${pc1.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const client = await openConsoleClient(wsUrl(d, consolePath(pid, pc1.node_id)));
    const closed = new Promise<number>((resolve) => client.ws.once('close', (code) => resolve(code)));
    assert.equal(await d.stop(), 0, 'SIGTERM exit, not SIGKILL');
    assert.equal(await closed, 1001);
  });
});

describe('console websocket relayed by the controller to a remote compute with auth', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-console-ws-'));
  let controller: TestDaemon;
  let remote: TestDaemon;
  let pid: string;
  let far: any;

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: { ...CONTROLLER_ENV, EMUCTL_CONSOLE_PORT_RANGE: '23420-23429' } });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: COMPUTE_ENV });
    const r = await controller.api('POST', '/v2/computes', { name: 'far', protocol: 'http', host: '127.0.0.1', port: remote.port, user: 'relay', password: 'c0mpute' });
    assert.equal(r.status, 201, r.text);
    pid = await createProject(controller, 'relayed');
    far = await createNode(controller, pid, 'FAR1', 'vpcs', { compute_id: r.body.compute_id });
  });
  after(async () => {
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('the compute\'s refusal keeps its status and message (a stopped node: 409)', async () => {
    const refused = await refusedHandshake(wsUrl(controller, consolePath(pid, far.node_id)));
    assert.equal(refused.status, 409);
    assert.match(refused.body.message, /compute 'far'.*FAR1 is not started/);
  });

  it('frames go both ways through the controller and the compute; closing frees the console for the next client', { timeout: 90_000 }, async () => {
    const started = await controller.api('POST', `/v2/projects/${pid}/nodes/${far.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    await useConsoleTwice(wsUrl(controller, consolePath(pid, far.node_id)), 'FAR1', '198.18.1.1');
  });

  it('the compute\'s own route asks for its credentials like every other route', async () => {
    const path = `/v2/compute/projects/${pid}/vpcs/nodes/${far.node_id}/console/ws`;
    assert.equal((await refusedHandshake(wsUrl(remote, path))).status, 401);
    assert.equal((await refusedHandshake(wsUrl(remote, path), basic('relay', 'wrong'))).status, 401);
    const client = await openConsoleClient(wsUrl(remote, path), basic('relay', 'c0mpute'));
    await sync(client, /FAR1> ?$/);
    await client.close();
  });

  it('a console reset on the controller reaches the compute: a client connected straight to the compute is dropped too', { timeout: 90_000 }, async () => {
    const direct = `/v2/compute/projects/${pid}/vpcs/nodes/${far.node_id}/console/ws`;
    /** The close code of the websocket, or 'open' when it is still open 10 s after `act`. */
    const closedBy = async (act: () => Promise<{ status: number; text: string }>) => {
      const client = await openConsoleClient(wsUrl(remote, direct), basic('relay', 'c0mpute'));
      await sync(client, /FAR1> ?$/);
      const closed = new Promise<number | 'open'>((resolve) => {
        client.ws.once('close', (code) => resolve(code));
        setTimeout(() => resolve('open'), 10_000).unref();
      });
      const answer = await act();
      assert.equal(answer.status, 204, answer.text);
      const outcome = await closed;
      if (outcome === 'open') await client.close();
      return outcome;
    };
    assert.equal(await closedBy(() => controller.api('POST', `/v2/projects/${pid}/nodes/${far.node_id}/console/reset`, {})), 1000, 'the node\'s reset');
    assert.equal(await closedBy(() => controller.api('POST', `/v2/projects/${pid}/nodes/console/reset`, {})), 1000, 'the project\'s reset');
  });

  it('a page of another site cannot open it: the request guard refuses its Origin with 403', async () => {
    const refused = await refusedHandshake(wsUrl(controller, consolePath(pid, far.node_id)), { origin: 'http://198.18.0.77:8080' });
    assert.equal(refused.status, 403);
  });
});

describe('console websocket relayed to an https compute pinned by its fingerprint', () => {
  let certs: TestCerts;
  let controller: TestDaemon;
  let remote: TestDaemon;

  before(async () => {
    certs = makeTestCerts();
    controller = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '23600-23649', EMUCTL_CONSOLE_PORT_RANGE: '23460-23469' } });
    remote = await startTestDaemon({
      flags: { role: 'compute', tlsCert: certs.leafCert, tlsKey: certs.leafKey },
      env: { EMUCTL_UDP_PORT_RANGE: '23650-23699', EMUCTL_CONSOLE_PORT_RANGE: '23470-23479' },
    });
  });
  after(async () => {
    await controller?.stop();
    await remote?.stop();
    if (controller) removeHome(controller.home);
    if (remote) removeHome(remote.home);
    certs?.remove();
  });

  it('the relay checks the compute\'s certificate as every call does (wss with the pin) and carries the console', { timeout: 90_000 }, async () => {
    const r = await controller.api('POST', '/v2/computes', { name: 'tls', protocol: 'https', host: '127.0.0.1', port: remote.port, fingerprint: certs.leafFingerprint });
    assert.equal(r.status, 201, r.text);
    const pid = await createProject(controller, 'tls-console');
    const pc = await createNode(controller, pid, 'TLS1', 'vpcs', { compute_id: r.body.compute_id });
    const started = await controller.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const client = await openConsoleClient(wsUrl(controller, consolePath(pid, pc.node_id)));
    try {
      await sync(client, /TLS1> ?$/);
    } finally {
      await client.close();
    }
  });
});
