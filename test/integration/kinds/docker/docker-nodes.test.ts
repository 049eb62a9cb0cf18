// Docker nodes on the real Docker engine: the compute routes, the container they make, and its supervision.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect, createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { openConsoleClient } from '../../../helpers/console-ws.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../../../helpers/daemon.js';
import { testImage } from '../../../helpers/docker-images.js';
import { createNode, createProject } from '../../../helpers/lab.js';
import { sleep, udpEndpoint } from '../../../helpers/udp.js';

const run = promisify(execFile);
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const ENV = { EMUCTL_UDP_PORT_RANGE: '27000-27099', EMUCTL_CONSOLE_PORT_RANGE: '27100-27199' };

/** Ids of every container a test saw made, removed at the end whatever happened. */
const made = new Set<string>();
async function removeMade(): Promise<void> {
  for (const id of made) await docker.getContainer(id).remove({ force: true }).catch(() => undefined);
}

/** `promise`, or a failure naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function containerExists(id: string): Promise<boolean> {
  return docker.getContainer(id).inspect().then(() => true, () => false);
}

/** Host interfaces of this namespace named like docker node TAPs. */
async function leftoverTaps(nodeId: string): Promise<string[]> {
  const { stdout } = await run('ip', ['-o', 'link']);
  return stdout.split('\n').filter((l) => l.includes(`emd${nodeId.replace(/-/g, '').slice(0, 8)}`));
}

/** What a telnet console sends within `ms` after `input` is typed (protocol bytes dropped). */
async function telnetSay(port: number, input: string, until: RegExp, ms = 15_000): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port });
  let seen = '';
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${until} on the console within ${ms} ms; got ${JSON.stringify(seen)}`)), ms);
      socket.on('data', (chunk: Buffer) => {
        seen += chunk.toString('latin1').replace(/\xff[\xfb-\xfe]./g, '');
        if (until.test(seen)) {
          clearTimeout(timer);
          resolve(seen);
        }
      });
      socket.once('error', reject);
      socket.once('connect', () => socket.write(input));
    });
  } finally {
    socket.destroy();
  }
}

describe('docker nodes: compute routes on the real Docker engine', () => {
  let d: TestDaemon;
  let host: string;
  let projectId: string;
  let base: string;

  before(async () => {
    host = await testImage('host');
    d = await startTestDaemon({ env: ENV });
    projectId = randomUUID();
    base = `/v2/compute/projects/${projectId}`;
    assert.equal((await d.api('POST', '/v2/compute/projects', { project_id: projectId, name: `docker-${projectId.slice(0, 8)}` })).status, 201);
  });
  after(async () => {
    await d?.stop();
    await removeMade();
    removeHome(d.home);
  });

  const create = async (body: Record<string, unknown>) => {
    const r = await d.api('POST', `${base}/docker/nodes`, { name: `h-${randomUUID().slice(0, 6)}`, image: host, ...body });
    if (r.body?.container_id) made.add(r.body.container_id);
    return r;
  };

  it('the compute lists docker among its node types', async () => {
    const r = await d.api('GET', '/v2/compute/capabilities');
    assert.ok(r.body.node_types.includes('docker'), JSON.stringify(r.body));
  });

  it('create makes a container (not started) with GNS3 2.2 fields, labels naming the daemon, project and node, no network, the default capabilities', async () => {
    const r = await create({ adapters: 2, environment: 'ROLE=edge\nEMPTY=', extra_hosts: 'gw:198.18.0.1', start_command: 'sh -c "sleep 1000"' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.get('x-route'), '/v2/compute/projects/{project_id}/docker/nodes');
    for (const f of ['node_id', 'name', 'status', 'console', 'console_type', 'aux', 'container_id', 'image', 'adapters', 'start_command', 'environment', 'extra_hosts', 'extra_volumes', 'usage', 'console_resolution', 'console_http_port', 'console_http_path', 'node_directory']) assert.ok(f in r.body, f);
    assert.equal(r.body.status, 'stopped');
    assert.equal(r.body.console_type, 'telnet');
    assert.notEqual(r.body.console, r.body.aux);
    const info = await docker.getContainer(r.body.container_id).inspect();
    assert.equal(info.State.Running, false);
    assert.equal(info.Config.Labels['emuctl.project'], projectId);
    assert.equal(info.Config.Labels['emuctl.node'], r.body.node_id);
    assert.equal(info.Config.Labels['emuctl.daemon'], join(d.home, 'run'));
    assert.match(info.Config.Labels['emuctl.owner'], new RegExp(`^${d.pid}-\\d+$`));
    assert.equal(info.HostConfig.NetworkMode, 'none');
    assert.deepEqual(info.HostConfig.CapAdd, ['NET_ADMIN', 'NET_RAW']);
    assert.equal(info.HostConfig.Privileged, false);
    assert.deepEqual(info.HostConfig.SecurityOpt, ['no-new-privileges:true']);
    assert.equal((info.HostConfig as { CgroupnsMode?: string }).CgroupnsMode, 'private');
    assert.equal(info.Config.Hostname, r.body.name);
    assert.deepEqual(info.Config.Cmd, ['sh', '-c', 'sleep 1000']);
    assert.ok(info.Config.Env.includes('ROLE=edge') && info.Config.Env.includes('EMPTY='), info.Config.Env.join(' '));
    assert.deepEqual(info.HostConfig.ExtraHosts, ['gw:198.18.0.1']);
    assert.equal(info.Config.Tty, true);
    assert.equal(info.Config.OpenStdin, true);
  });

  it('refuses what would reach Docker unchecked (400) and console types it cannot serve (409)', async () => {
    const bad: [Record<string, unknown>, number, RegExp][] = [
      [{ image: '--privileged' }, 400, /not a valid Docker image name/],
      [{ image: 'UPPER/case' }, 400, /not a valid Docker image name/],
      [{ environment: 'BAD KEY=1' }, 400, /not a valid variable name/],
      [{ extra_volumes: ['/etc/../..'] }, 400, /extra_volumes/],
      [{ extra_volumes: ['relative/path'] }, 400, /extra_volumes/],
      [{ extra_hosts: 'nocolon' }, 400, /extra_hosts/],
      [{ extra_hosts: 'h:not-an-ip' }, 400, /extra_hosts/],
      [{ cap_add: ['ALL'] }, 400, /cap_add/],
      [{ start_command: 'sh -c "unterminated' }, 400, /unterminated/],
      [{ console_type: 'vnc' }, 409, /console_type vnc is not supported .*telnet or none/],
      [{ console_type: 'https' }, 409, /console_type https is not supported/],
      // A registry the caller names by address or port is refused before Docker hears of it (docker_registries lists the allowed ones).
      [{ image: '127.0.0.1:9/emuctl-test/absent:nope' }, 400, /image: .*registry 127\.0\.0\.1:9.*docker_registries/],
    ];
    for (const [body, status, message] of bad) {
      const r = await create(body);
      assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
      assert.match(r.body.message, message, JSON.stringify(body));
    }
  });

  it('start answers the node, moves eth0..ethN-1 in before the command runs; suspend pauses, start unpauses; exec gives the real exit status; stop and delete leave nothing', async () => {
    // The command lists the interfaces as it starts: they must already be there.
    const r = await create({ adapters: 3, start_command: 'sh -c "ls /sys/class/net > /tmp/at-start; exec sleep 100000"', extra_volumes: ['/data/keep'] });
    assert.equal(r.status, 201, r.text);
    const node = `${base}/docker/nodes/${r.body.node_id}`;
    const started = await d.api('POST', `${node}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal(started.body.status, 'started');
    const seen = await d.api('POST', `${node}/exec`, { command: ['cat', '/tmp/at-start'] });
    assert.equal(seen.status, 200, seen.text);
    assert.deepEqual(seen.body.output.split('\n').filter(Boolean).sort(), ['eth0', 'eth1', 'eth2', 'lo']);
    const up = await d.api('POST', `${node}/exec`, { command: ['cat', '/sys/class/net/eth2/operstate', '/sys/class/net/eth0/flags'] });
    assert.match(up.body.output, /0x1003/, 'eth0 is up');

    const failing = await d.api('POST', `${node}/exec`, { command: ['sh', '-c', 'echo out; echo err >&2; exit 7'] });
    assert.equal(failing.status, 200, failing.text);
    assert.equal(failing.body.exit_code, 7);
    assert.deepEqual(failing.body.output.split('\n').sort(), ['', 'err', 'out'], 'stdout and stderr both (their order across two pipes is not kept)');
    const missing = await d.api('POST', `${node}/exec`, { command: ['/no/such/binary'] });
    assert.equal(missing.status, 200, missing.text);
    assert.notEqual(missing.body.exit_code, 0);
    const slow = await d.api('POST', `${node}/exec`, { command: ['sleep', '30'], timeout: 1 });
    assert.equal(slow.status, 409, slow.text);
    assert.match(slow.body.message, /exec timeout of 1 s/);

    const suspended = await d.api('POST', `${node}/suspend`, {});
    assert.equal(suspended.status, 204, suspended.text);
    assert.equal((await docker.getContainer(r.body.container_id).inspect()).State.Paused, true);
    assert.equal((await d.api('GET', node)).body.status, 'suspended');
    const resumed = await d.api('POST', `${node}/start`, {});
    assert.equal(resumed.status, 200, resumed.text);
    assert.equal(resumed.body.status, 'started');
    assert.equal((await docker.getContainer(r.body.container_id).inspect()).State.Paused, false);
    // Still the same container and interfaces: unpause is not a restart.
    assert.equal((await d.api('POST', `${node}/exec`, { command: ['cat', '/tmp/at-start'] })).body.exit_code, 0);

    const reloaded = await d.api('POST', `${node}/reload`, {});
    assert.equal(reloaded.status, 204, reloaded.text);
    assert.equal((await d.api('GET', node)).body.status, 'started');
    const after = await d.api('POST', `${node}/exec`, { command: ['ls', '/sys/class/net'] });
    assert.deepEqual(after.body.output.split('\n').filter(Boolean).sort(), ['eth0', 'eth1', 'eth2', 'lo']);

    // A volume's files live in the node directory and survive stop/start.
    await d.api('POST', `${node}/exec`, { command: ['sh', '-c', 'echo kept > /data/keep/file'] });
    assert.equal(readFileSync(join(r.body.node_directory, 'data/keep/file'), 'utf8'), 'kept\n');

    const stopped = await d.api('POST', `${node}/stop`, {});
    assert.equal(stopped.status, 204, stopped.text);
    assert.equal((await d.api('GET', node)).body.status, 'stopped');
    const notStarted = await d.api('POST', `${node}/exec`, { command: ['true'] });
    assert.equal(notStarted.status, 409);
    assert.match(notStarted.body.message, /is not started/);
    assert.deepEqual(await leftoverTaps(r.body.node_id), []);

    assert.equal((await d.api('DELETE', node)).status, 204);
    assert.equal(await containerExists(r.body.container_id), false, 'the container is removed with the node');
    assert.deepEqual((await docker.listVolumes({ filters: JSON.stringify({ label: [`emuctl.node=${r.body.node_id}`] }) })).Volumes ?? [], []);
  });

  it('a volume starts with the image\'s files at that path (an empty node directory is filled from the image)', async () => {
    const frr = await testImage('frr');
    const r = await create({ image: frr, adapters: 0, start_command: 'sleep 100000', extra_volumes: ['/etc/frr'] });
    assert.equal(r.status, 201, r.text);
    const node = `${base}/docker/nodes/${r.body.node_id}`;
    assert.equal((await d.api('POST', `${node}/start`, {})).status, 200);
    assert.match(readFileSync(join(r.body.node_directory, 'etc/frr/daemons'), 'utf8'), /zebra/);
    assert.equal((await d.api('DELETE', node)).status, 204);
  });

  it('a container whose command ends leaves the node stopped (and says so); a paused one stops too', async () => {
    const r = await create({ adapters: 1, start_command: 'sh -c "sleep 1; exit 3"' });
    const node = `${base}/docker/nodes/${r.body.node_id}`;
    assert.equal((await d.api('POST', `${node}/start`, {})).status, 200);
    const deadline = Date.now() + 30_000;
    while ((await d.api('GET', node)).body.status !== 'stopped' && Date.now() < deadline) await sleep(100);
    assert.equal((await d.api('GET', node)).body.status, 'stopped');
    await within(d.waitForLog(new RegExp(`docker node ${r.body.name} stopped on its own \\(exit code 3\\)`)), 10_000, 'the exit logged');
    assert.deepEqual(await leftoverTaps(r.body.node_id), []);

    const p = await create({ adapters: 1, start_command: 'sleep 100000' });
    const paused = `${base}/docker/nodes/${p.body.node_id}`;
    assert.equal((await d.api('POST', `${paused}/start`, {})).status, 200);
    assert.equal((await d.api('POST', `${paused}/suspend`, {})).status, 204);
    assert.equal((await d.api('POST', `${paused}/stop`, {})).status, 204);
    assert.equal((await d.api('GET', paused)).body.status, 'stopped');
    assert.equal((await docker.getContainer(p.body.container_id).inspect()).State.Running, false);
    for (const n of [node, paused]) assert.equal((await d.api('DELETE', n)).status, 204);
  });

  it('GNS3 2.2 fields: custom_adapters give an adapter its MAC address; aux_type none takes no aux port', async () => {
    const r = await create({ adapters: 2, start_command: 'sleep 100000', aux_type: 'none', custom_adapters: [{ adapter_number: 1, mac_address: '02:42:c6:12:00:01' }] });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.aux, null);
    assert.deepEqual(r.body.custom_adapters, [{ adapter_number: 1, mac_address: '02:42:c6:12:00:01' }]);
    const node = `${base}/docker/nodes/${r.body.node_id}`;
    assert.equal((await d.api('POST', `${node}/start`, {})).status, 200);
    assert.equal((await d.api('POST', `${node}/exec`, { command: ['cat', '/sys/class/net/eth1/address'] })).body.output, '02:42:c6:12:00:01\n');
    assert.equal((await d.api('DELETE', node)).status, 204);
  });

  it('a console port another program took is a 409 at start, and the node stays stopped', async () => {
    const r = await create({ adapters: 1, start_command: 'sleep 100000' });
    const node = `${base}/docker/nodes/${r.body.node_id}`;
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(r.body.console, '127.0.0.1', resolve));
    try {
      const started = await d.api('POST', `${node}/start`, {});
      assert.equal(started.status, 409, started.text);
      assert.match(started.body.message, new RegExp(`cannot listen on console port ${r.body.console}: EADDRINUSE`));
      assert.equal((await d.api('GET', node)).body.status, 'stopped');
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    assert.equal((await d.api('DELETE', node)).status, 204);
  });

  it('a container Docker refuses to start is a 409 quoting Docker', async () => {
    const r = await create({ adapters: 0, start_command: '/no/such/binary' });
    assert.equal(r.status, 201, r.text);
    const node = `${base}/docker/nodes/${r.body.node_id}`;
    const started = await d.api('POST', `${node}/start`, {});
    assert.equal(started.status, 409, started.text);
    assert.match(started.body.message, /Docker could not start .*no such file or directory/);
    assert.equal((await d.api('GET', node)).body.status, 'stopped');
    assert.equal((await d.api('DELETE', node)).status, 204);
  });

  it('update: a stopped node takes new settings (the container is made again at start); a running one refuses new adapters', async () => {
    const r = await create({ adapters: 1, start_command: 'sleep 100000' });
    const node = `${base}/docker/nodes/${r.body.node_id}`;
    const changed = await d.api('PUT', node, { adapters: 2, environment: 'A=1', name: 'renamed-node' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.adapters, 2);
    assert.equal((await d.api('POST', `${node}/start`, {})).status, 200);
    const now = await d.api('GET', node);
    made.add(now.body.container_id);
    const info = await docker.getContainer(now.body.container_id).inspect();
    assert.ok(info.Config.Env.includes('A=1'));
    assert.equal(info.Config.Hostname, 'renamed-node');
    assert.equal(await containerExists(r.body.container_id), false, 'the old container went');
    const refused = await d.api('PUT', node, { adapters: 3 });
    assert.equal(refused.status, 409, refused.text);
    assert.equal((await d.api('PUT', node, { console_type: 'vnc' })).status, 409);
    assert.equal((await d.api('DELETE', node)).status, 204);
  });

  it('console: telnet on the console port reaches the main process TTY; aux is a shell by docker exec', async () => {
    const r = await create({ adapters: 1, start_command: 'sh' });
    const node = `${base}/docker/nodes/${r.body.node_id}`;
    assert.equal((await d.api('POST', `${node}/start`, {})).status, 200);
    const out = await telnetSay(r.body.console, 'echo console-$((6*7))\r\n', /console-42/);
    assert.match(out, /console-42/);
    const aux = await telnetSay(r.body.aux, 'echo aux-$((6*7)); ls /sys/class/net\r\n', /aux-42[\s\S]*eth0/);
    assert.match(aux, /aux-42/);
    assert.equal((await d.api('DELETE', node)).status, 204);
  });

  it('images: GET lists the engine\'s tagged images as GNS3 does; POST loads a `docker save` archive offline', async () => {
    const list = await d.api('GET', '/v2/compute/docker/images');
    assert.equal(list.status, 200, list.text);
    assert.ok(list.body.some((i: { image: string }) => i.image === host), JSON.stringify(list.body));
    const tag = `emuctl-test/loaded-${randomUUID().slice(0, 8)}:1`;
    const dir = mkdtempSync(join(tmpdir(), 'emuctl-docker-save-'));
    try {
      await docker.getImage(host).tag({ repo: tag.split(':')[0], tag: '1' });
      await run('docker', ['save', '-o', join(dir, 'image.tar'), tag]);
      await docker.getImage(tag).remove();
      const loaded = await fetch(`${d.url}/v2/compute/docker/images`, { method: 'POST', body: readFileSync(join(dir, 'image.tar')) });
      const body = (await loaded.json()) as { images: string[] };
      assert.equal(loaded.status, 201, JSON.stringify(body));
      assert.deepEqual(body.images, [tag]);
      assert.ok((await d.api('GET', '/v2/compute/docker/images')).body.some((i: { image: string }) => i.image === tag));
      const junk = await fetch(`${d.url}/v2/compute/docker/images`, { method: 'POST', body: Buffer.from('not a tar archive') });
      assert.ok(junk.status === 400 || junk.status === 409, `junk is refused (${junk.status})`);
    } finally {
      await docker.getImage(tag).remove().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docker nodes: controller exec, and other kinds without it', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ env: ENV });
  });
  after(async () => {
    await d?.stop();
    await removeMade();
    removeHome(d.home);
  });

  it('POST /v2/projects/{id}/nodes/{id}/exec runs in a docker node on its compute; a VPCS answers 409 pointing at its console; closing the project removes the container', async () => {
    const pid = await createProject(d, `exec-${randomUUID().slice(0, 8)}`);
    const h = await createNode(d, pid, 'H1', 'docker', { compute_id: 'local', properties: { image: await testImage('host'), start_command: 'sleep 100000' } });
    const cid = (await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${h.node_id}`)).body.container_id;
    made.add(cid);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${h.node_id}/start`, {})).status, 200);
    // The web console (GNS3's console websocket) reaches the container's TTY through the telnet console.
    const h2 = await createNode(d, pid, 'T1', 'docker', { compute_id: 'local', properties: { image: await testImage('host'), start_command: 'sh' } });
    made.add((await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${h2.node_id}`)).body.container_id);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${h2.node_id}/start`, {})).status, 200);
    const ws = await openConsoleClient(`${d.url.replace(/^http/, 'ws')}/v2/projects/${pid}/nodes/${h2.node_id}/console/ws`);
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        ws.ws.send(Buffer.from(`echo web-$((40+${attempt}))\n`));
        const done = await ws.waitFor(new RegExp(`web-${40 + attempt}\\r?\\n`), 0, 3000).then(() => true, () => false);
        if (done) break;
      }
      assert.match(ws.text(), /web-4\d\r?\n/);
    } finally {
      await ws.close();
    }

    const r = await d.api('POST', `/v2/projects/${pid}/nodes/${h.node_id}/exec`, { command: ['sh', '-c', 'hostname; exit 4'], timeout: 20 });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { output: 'H1\n', exit_code: 4 });
    // Duplicate (GNS3's, of a stopped node): a container of its own, its own aux port, a copy of the volume files.
    const vol = await createNode(d, pid, 'V1', 'docker', { compute_id: 'local', properties: { image: await testImage('host'), start_command: 'sleep 100000', extra_volumes: ['/keep'] } });
    const vState = async (id: string) => (await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${id}`)).body;
    made.add((await vState(vol.node_id)).container_id);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${vol.node_id}/start`, {})).status, 200);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${vol.node_id}/exec`, { command: ['sh', '-c', 'echo copied > /keep/f'] })).body.exit_code, 0);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${vol.node_id}/stop`, {})).status, 200);
    const dup = await d.api('POST', `/v2/projects/${pid}/nodes/${vol.node_id}/duplicate`, { x: 10, y: 10 });
    assert.equal(dup.status, 201, dup.text);
    const [orig, copy] = [await vState(vol.node_id), await vState(dup.body.node_id)];
    made.add(copy.container_id);
    assert.notEqual(copy.container_id, orig.container_id);
    assert.notEqual(copy.aux, orig.aux);
    assert.equal(readFileSync(join(copy.node_directory, 'keep/f'), 'utf8'), 'copied\n');

    const pc = await createNode(d, pid, 'PC1', 'vpcs', { compute_id: 'local' });
    const v = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/exec`, { command: ['ping'] });
    assert.equal(v.status, 409, v.text);
    assert.equal(v.body.message, 'node PC1 (vpcs) has no exec; use its console');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/close`, {})).status, 204);
    assert.equal(await containerExists(cid), false);
  });
});

describe('docker nodes: export and import', () => {
  it('a .gns3project with a docker node imports with its volume files, and the imported node starts in a container of its own', async () => {
    const d = await startTestDaemon({ env: ENV });
    try {
      const pid = await createProject(d, `export-${randomUUID().slice(0, 8)}`);
      const h = await createNode(d, pid, 'H1', 'docker', { compute_id: 'local', properties: { image: await testImage('host'), start_command: 'sleep 100000', extra_volumes: ['/keep'], adapters: 2 } });
      const state = async (project: string, id: string) => (await d.api('GET', `/v2/compute/projects/${project}/docker/nodes/${id}`)).body;
      made.add((await state(pid, h.node_id)).container_id);
      assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${h.node_id}/start`, {})).status, 200);
      assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${h.node_id}/exec`, { command: ['sh', '-c', 'echo exported > /keep/f'] })).body.exit_code, 0);
      assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${h.node_id}/stop`, {})).status, 200);
      const exported = await fetch(`${d.url}/v2/projects/${pid}/export`);
      assert.equal(exported.status, 200);
      const archive = new Uint8Array(await exported.arrayBuffer());

      const imported = randomUUID();
      const r = await fetch(`${d.url}/v2/projects/${imported}/import?name=imported-${imported.slice(0, 8)}`, { method: 'POST', body: archive });
      assert.equal(r.status, 201, await r.text());
      assert.equal((await d.api('POST', `/v2/projects/${imported}/open`, {})).status, 201);
      const nodes = (await d.api('GET', `/v2/projects/${imported}/nodes`)).body;
      assert.equal(nodes.length, 1);
      assert.equal(nodes[0].node_type, 'docker');
      const copy = await state(imported, nodes[0].node_id);
      made.add(copy.container_id);
      assert.notEqual(copy.container_id, (await state(pid, h.node_id)).container_id);
      assert.equal(copy.adapters, 2, JSON.stringify(copy));
      assert.equal((await d.api('POST', `/v2/projects/${imported}/nodes/${nodes[0].node_id}/start`, {})).status, 200);
      const seen = await d.api('POST', `/v2/projects/${imported}/nodes/${nodes[0].node_id}/exec`, { command: ['cat', '/keep/f'] });
      assert.deepEqual(seen.body, { output: 'exported\n', exit_code: 0 });
      for (const p of [pid, imported]) assert.equal((await d.api('DELETE', `/v2/projects/${p}`)).status, 204);
    } finally {
      await d.stop();
      await removeMade();
      removeHome(d.home);
    }
  });
});

describe('docker nodes: no Docker engine', () => {
  it('create and start answer 409 saying Docker is missing; the compute does not list docker; other kinds keep working', async () => {
    const d = await startTestDaemon({ env: { ...ENV, DOCKER_HOST: `unix://${join(tmpdir(), `no-docker-${randomUUID()}.sock`)}` } });
    try {
      const projectId = randomUUID();
      const base = `/v2/compute/projects/${projectId}`;
      await d.api('POST', '/v2/compute/projects', { project_id: projectId, name: 'no-docker' });
      const r = await d.api('POST', `${base}/docker/nodes`, { name: 'h', image: 'busybox:latest' });
      assert.equal(r.status, 409, r.text);
      assert.match(r.body.message, /^Docker is not available on this compute: .*\(install Docker and start dockerd, or set DOCKER_HOST\)$/);
      assert.ok(!r.body.message.includes('\n'));
      const images = await d.api('GET', '/v2/compute/docker/images');
      assert.equal(images.status, 409);
      const caps = await d.api('GET', '/v2/compute/capabilities');
      assert.ok(!caps.body.node_types.includes('docker'), JSON.stringify(caps.body.node_types));
      assert.ok(caps.body.node_types.includes('vpcs'));
      const pc = await d.api('POST', `${base}/vpcs/nodes`, { name: 'PC1' });
      assert.equal(pc.status, 201, pc.text);
      const sw = await d.api('POST', `${base}/ethernet_switch/nodes`, { name: 'SW1' });
      assert.equal(sw.status, 201, sw.text);
    } finally {
      await d.stop();
      removeHome(d.home);
    }
  });
});

describe('docker nodes: supervision after kill -9', () => {
  it('a daemon restarted on the same home removes the containers its killed predecessor left, not those of a running daemon', async () => {
    const home = mkdtempSync(join(tmpdir(), 'emuctl-docker-kill-'));
    // Two daemons of one home (both on --port 0): the survivor's containers are not leftovers.
    const other = await startTestDaemon({ home, env: ENV });
    let d = await startTestDaemon({ home, env: ENV });
    try {
      const image = await testImage('host');
      const mk = async (daemon: TestDaemon) => {
        const projectId = randomUUID();
        await daemon.api('POST', '/v2/compute/projects', { project_id: projectId, name: 'kill' });
        const r = await daemon.api('POST', `/v2/compute/projects/${projectId}/docker/nodes`, { name: 'h', image, adapters: 2, start_command: 'sleep 100000' });
        assert.equal(r.status, 201, r.text);
        made.add(r.body.container_id);
        assert.equal((await daemon.api('POST', `/v2/compute/projects/${projectId}/docker/nodes/${r.body.node_id}/start`, {})).status, 200);
        return r.body;
      };
      const left = await mk(d);
      const kept = await mk(other);
      await d.stop('SIGKILL');
      assert.equal(await containerExists(left.container_id), true, 'kill -9 leaves the container');
      assert.deepEqual(await leftoverTaps(left.node_id), [], 'the TAPs went with the dead daemon\'s fds');
      d = await startTestDaemon({ home, env: ENV });
      await within(d.waitForLog(/removed leftover container/), 30_000, 'the leftover container removed');
      assert.equal(await containerExists(left.container_id), false, 'the restarted daemon removed it');
      assert.equal((await docker.getContainer(kept.container_id).inspect()).State.Running, true, 'a running daemon\'s container is left alone');
    } finally {
      await d.stop();
      await other.stop();
      await removeMade();
      removeHome(home);
    }
  });
});

describe('docker nodes: the dataplane worker restarts', () => {
  it('the TAPs the restarted worker makes again are moved into the container again, and frames from eth0 reach the link', async () => {
    // The failpoint kills the dataplane worker on its first stats call.
    const d = await startTestDaemon({ env: { ...ENV, EMUCTL_FAILPOINTS: 'dataplane.worker.crash=1' } });
    const peer = await udpEndpoint();
    try {
      const projectId = randomUUID();
      const base = `/v2/compute/projects/${projectId}`;
      await d.api('POST', '/v2/compute/projects', { project_id: projectId, name: 'dp-restart' });
      const r = await d.api('POST', `${base}/docker/nodes`, { name: 'h', image: await testImage('host'), adapters: 1, start_command: 'sleep 100000' });
      assert.equal(r.status, 201, r.text);
      made.add(r.body.container_id);
      const node = `${base}/docker/nodes/${r.body.node_id}`;
      const lport = (await d.api('POST', `${base}/ports/udp`, {})).body.udp_port;
      assert.equal((await d.api('POST', `${node}/adapters/0/ports/0/nio`, { type: 'nio_udp', lport, rhost: '127.0.0.1', rport: peer.port })).status, 201);
      assert.equal((await d.api('POST', `${node}/start`, {})).status, 200);

      assert.equal((await d.api('GET', `${node}/stats`)).status, 503);
      // The rebuilt worker makes the TAP again in the daemon's namespace; the node moves it in.
      const deadline = Date.now() + 30_000;
      while ((await d.api('GET', `${node}/stats`)).status === 503 && Date.now() < deadline) await sleep(50);
      while ((await leftoverTaps(r.body.node_id)).length && Date.now() < deadline) await sleep(100);
      assert.deepEqual(await leftoverTaps(r.body.node_id), [], 'no TAP is left in the daemon\'s namespace');
      const sent = await d.api('POST', `${node}/exec`, { command: ['sh', '-c', 'ip addr add 198.18.3.1/24 dev eth0 && ping -c 2 -W 1 198.18.3.2'] });
      assert.equal(sent.status, 200, sent.text);
      // IPv6 neighbour discovery may come first: the ARP request for the peer must come.
      let ethertype = 0;
      for (let frames = 0; ethertype !== 0x0806 && frames < 50; frames++) ethertype = (await peer.next(10_000)).readUInt16BE(12);
      assert.equal(ethertype, 0x0806, 'an ARP request for the peer came out of eth0 onto the link');
      assert.equal((await d.api('DELETE', node)).status, 204);
    } finally {
      await peer.close();
      await d.stop();
      await removeMade();
      removeHome(d.home);
    }
  });
});
