// A docker node whose image the engine lacks is pulled from its registry at creation, with progress,
// as GNS3 does. The registry is Debian's docker-registry on 127.0.0.1, run by the test: nothing
// leaves the machine.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { testImage } from '../../../helpers/docker-images.js';
import { createProject } from '../../../helpers/lab.js';

const run = promisify(execFile);
const docker = new Docker();

/** A TCP port free on 127.0.0.1 now (the kernel's choice). */
function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function listening(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`docker-registry did not listen on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('docker nodes: a missing image is pulled from its registry', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-docker-pull-'));
  let registry: ChildProcess;
  let d: TestDaemon;
  let image: string;
  const containers: string[] = [];

  before(async () => {
    const port = await freeTcpPort();
    const config = join(tmp, 'registry.yml');
    writeFileSync(config, `version: 0.1\nlog: {level: error}\nstorage: {filesystem: {rootdirectory: ${join(tmp, 'storage')}}}\nhttp: {addr: 127.0.0.1:${port}}\n`);
    registry = spawn('docker-registry', ['serve', config], { stdio: 'ignore' });
    await listening(port, 20_000);
    image = `127.0.0.1:${port}/emuctl-pull/host:${process.pid}`;
    await run('docker', ['tag', await testImage('host'), image]);
    await run('docker', ['push', image]);
    await run('docker', ['rmi', image]);
    // A registry with a port is refused unless the operator lists it.
    d = await startTestDaemon({ env: { EMUCTL_CONSOLE_PORT_RANGE: '26530-26549', EMUCTL_UDP_PORT_RANGE: '26550-26569', EMUCTL_DOCKER_REGISTRIES: `127.0.0.1:${port}` } });
  });
  after(async () => {
    await d?.stop();
    for (const id of containers) await docker.getContainer(id).remove({ force: true }).catch(() => undefined);
    await run('docker', ['rmi', image]).catch(() => undefined);
    registry?.kill();
    rmSync(tmp, { recursive: true, force: true });
    if (d) removeHome(d.home);
  });

  it('create pulls it, with progress in the daemon log, and the node starts', async () => {
    const pid = await createProject(d, 'pull');
    const r = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'P1', node_type: 'docker', compute_id: 'local', properties: { image } });
    assert.equal(r.status, 201, r.text);
    containers.push(r.body.properties.container_id);
    assert.match(d.log(), new RegExp(`Pulling '${image.replace(/[.]/g, '\\.')}' from its registry`));
    assert.match(d.log(), /Pulled '/);
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${r.body.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal(started.body.status, 'started');
  });

  it('an image the registry does not have is a 409 quoting Docker, and nothing is made', async () => {
    const pid = await createProject(d, 'pull-missing');
    const absent = image.replace(/:[^:]+$/, ':absent');
    const ours = async () => (await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`emuctl.daemon=${join(d.home, 'run')}`] }) })).length;
    const before = await ours();
    const r = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'P2', node_type: 'docker', compute_id: 'local', properties: { image: absent } });
    assert.equal(r.status, 409, r.text);
    assert.match(r.body.message, /is not on this compute and could not be pulled \(.*(not found|unknown).*\)/i);
    assert.equal(await ours(), before);
  });
});
