// Docker nodes cannot reach their host (issue 26, items 1-4), on the real Docker engine: the cgroup
// release_agent escape from a node's start_command, from the API and from an imported archive;
// privileged and host-reaching capabilities refused; registries named by address; volume modes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { cliEnv, removeTempHome, runInProcess, tempHome } from '../../../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { testImage } from '../../../helpers/docker-images.js';
import { createNode, createProject } from '../../../helpers/lab.js';
import { rawZip } from '../../../helpers/raw-zip.js';

const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const ENV = { EMUCTL_UDP_PORT_RANGE: '24640-24669', EMUCTL_CONSOLE_PORT_RANGE: '29300-29329' };

/**
 * The escape that made the host run a file as root with CAP_SYS_ADMIN on cgroup v1: mount a
 * hierarchy, point its release_agent at a script through the container's overlay upper directory
 * (a host path), and empty a cgroup. The script would create `marker` on the host. Each step's
 * outcome goes to /probe/probe.log (a volume the test reads).
 */
function escapeScript(marker: string): string {
  return `#!/bin/sh
exec > /probe/probe.log 2>&1
echo "caps $(grep CapEff /proc/self/status)"
d=/tmp/cg; mkdir -p $d
if mount -t cgroup -o rdma cgroup $d || mount -t cgroup -o memory cgroup $d; then echo MOUNTED; else echo MOUNT-REFUSED; fi
host=$(sed -n 's/.*upperdir=\\([^,]*\\).*/\\1/p' /proc/mounts | head -n 1)
printf '#!/bin/sh\\ntouch ${marker}\\n' > /agent; chmod +x /agent
# Only a real cgroup mount counts (after a refused mount, $d is a plain directory).
if grep -q " $d cgroup " /proc/mounts && mkdir -p $d/x && echo 1 > $d/x/notify_on_release && echo "$host/agent" > $d/release_agent && sh -c "echo \\$\\$ > $d/x/cgroup.procs"; then echo AGENT-SET; else echo AGENT-REFUSED; fi
# The hierarchies Docker shows the container are read-only.
for f in /sys/fs/cgroup/*/release_agent; do if [ -e "$f" ] && echo "$host/agent" > "$f"; then echo "SYS-AGENT-SET $f"; fi; done
echo PROBE-DONE
exec sleep 100000
`;
}

/** Polls `check` until it holds (a loaded machine: generous deadline, no fixed sleep). */
async function waitFor(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A TCP port nothing listens on now (taken and released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('docker containment on the real engine', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-escape-'));
  const made = new Set<string>();
  let d: TestDaemon;
  let host: string;

  const onCompute = async (pid: string, nodeId: string) => (await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${nodeId}`)).body;
  const containerOf = async (pid: string, nodeId: string): Promise<string> => (await onCompute(pid, nodeId)).container_id;
  before(async () => {
    host = await testImage('host');
    d = await startTestDaemon({ env: ENV });
  });
  after(async () => {
    await d?.stop();
    for (const id of made) await docker.getContainer(id).remove({ force: true }).catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
    if (d) removeHome(d.home);
  });

  it('the API refuses privileged, SYS_ADMIN and every host-reaching capability with 400 naming the field; templates too', async () => {
    const pid = await createProject(d, `refuse-${randomUUID().slice(0, 8)}`);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ privileged: true }, /^privileged: .*docker_unsafe_caps/],
      [{ cap_add: ['NET_ADMIN', 'SYS_ADMIN'] }, /^cap_add: SYS_ADMIN /],
      ...['SYS_MODULE', 'SYS_PTRACE', 'SYS_RAWIO', 'DAC_READ_SEARCH', 'BPF', 'PERFMON', 'SYS_TIME'].map((cap): [Record<string, unknown>, RegExp] => [{ cap_add: [cap] }, new RegExp(`^cap_add: ${cap} `)]),
      [{ image: `localhost:${await closedPort()}/x` }, /^image: .*docker_registries/],
      [{ image: '127.1/x' }, /^image: .*docker_registries/],
    ];
    // A plain node first: the compute then has the project (the controller makes it there with its first node).
    const plain = await createNode(d, pid, 'P', 'docker', { compute_id: 'local', properties: { image: host } });
    made.add(plain.properties.container_id);
    // This daemon's containers only (other tests make theirs on the same engine).
    const ours = async () => (await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`emuctl.daemon=${join(d.home, 'run')}`] }) })).length;
    const before = await ours();
    assert.ok(before >= 1, 'the filter finds the plain node\'s container');
    for (const [properties, message] of cases) {
      const viaController = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'X', node_type: 'docker', compute_id: 'local', properties: { image: host, ...properties } });
      assert.equal(viaController.status, 400, `${JSON.stringify(properties)}: ${viaController.text}`);
      assert.match(viaController.body.message, message);
      const viaCompute = await d.api('POST', `/v2/compute/projects/${pid}/docker/nodes`, { name: 'X', image: host, ...properties });
      assert.equal(viaCompute.status, 400, viaCompute.text);
      const template = await d.api('POST', '/v2/templates', { name: 'X', template_type: 'docker', compute_id: 'local', image: host, ...properties });
      assert.equal(template.status, 400, template.text);
    }
    assert.equal(await ours(), before, 'no container made');
    const update = await d.api('PUT', `/v2/projects/${pid}/nodes/${plain.node_id}`, { properties: { cap_add: ['SYS_ADMIN'] } });
    assert.equal(update.status, 400, update.text);
    assert.match(update.body.message, /cap_add: SYS_ADMIN/);
  });

  it('a default node is hardened (read back from Docker and /proc), and the cgroup release_agent escape in its start_command fails: the marker never appears', async () => {
    const pid = await createProject(d, `escape-${randomUUID().slice(0, 8)}`);
    const marker = join(tmp, 'api-marker');
    const n = await createNode(d, pid, 'E1', 'docker', { compute_id: 'local', properties: { image: host, extra_volumes: ['/probe'], start_command: 'sh /probe/escape.sh' } });
    const cid = await containerOf(pid, n.node_id);
    made.add(cid);
    const info = await docker.getContainer(cid).inspect();
    const h = info.HostConfig as Docker.HostConfig & { CgroupnsMode?: string };
    assert.deepEqual(h.CapAdd, ['NET_ADMIN', 'NET_RAW']);
    assert.equal(h.Privileged, false);
    assert.deepEqual(h.SecurityOpt, ['no-new-privileges:true']);
    assert.equal(h.CgroupnsMode, 'private');
    assert.deepEqual([h.NetworkMode, h.PidMode, h.IpcMode, h.UTSMode, h.UsernsMode], ['none', '', 'private', '', '']);
    assert.deepEqual([h.Devices ?? [], h.Binds ?? []], [[], []]);
    const dir = (await onCompute(pid, n.node_id)).node_directory as string;
    writeFileSync(join(dir, 'probe', 'escape.sh'), escapeScript(marker));
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const log = join(dir, 'probe', 'probe.log');
    await waitFor('the probe to run', () => existsSync(log) && readFileSync(log, 'utf8').includes('PROBE-DONE'));
    const out = readFileSync(log, 'utf8');
    assert.match(out, /MOUNT-REFUSED/, out);
    assert.match(out, /AGENT-REFUSED/, out);
    assert.doesNotMatch(out, /SYS-AGENT-SET/, out);
    assert.equal(existsSync(marker), false, 'the host ran nothing');
    const state = await docker.getContainer(cid).inspect();
    const status = readFileSync(`/proc/${state.State.Pid}/status`, 'utf8');
    assert.match(status, /^NoNewPrivs:\s+1$/m);
    assert.match(status, /^Seccomp:\s+2$/m);
    assert.equal((BigInt(`0x${/^CapBnd:\s+(\S+)/m.exec(status)![1]}`) >> 21n) & 1n, 0n, 'no CAP_SYS_ADMIN in the bounding set');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/stop`, {})).status, 200);
  });

  it('volume directories Docker fills from the image end up 0700, and the container still reads them', async () => {
    const pid = await createProject(d, `modes-${randomUUID().slice(0, 8)}`);
    const n = await createNode(d, pid, 'M1', 'docker', { compute_id: 'local', properties: { image: host, extra_volumes: ['/etc', '/data/empty'], start_command: 'sleep 100000' } });
    made.add(await containerOf(pid, n.node_id));
    const dir = (await onCompute(pid, n.node_id)).node_directory as string;
    assert.ok(existsSync(join(dir, 'etc', 'passwd')), 'filled from the image');
    for (const v of ['etc', 'data/empty']) assert.equal(statSync(join(dir, v)).mode & 0o777, 0o700, v);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/start`, {})).status, 200);
    for (const v of ['etc', 'data/empty']) assert.equal(statSync(join(dir, v)).mode & 0o777, 0o700, v);
    const seen = await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/exec`, { command: ['head', '-n', '1', '/etc/passwd'] });
    assert.deepEqual(seen.body, { output: 'root:x:0:0:root:/root:/bin/sh\n', exit_code: 0 });
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/stop`, {})).status, 200);
  });

  it('a lab file that asks for privileged or SYS_ADMIN: lab up fails with one line naming the property, and makes no container', async () => {
    const home = tempHome();
    try {
      for (const [properties, message] of [['{privileged: true}', /privileged: a privileged container is root on the host/], ['{cap_add: [NET_ADMIN, SYS_ADMIN]}', /cap_add: SYS_ADMIN reaches the host kernel/]] as const) {
        const file = join(tmp, `lab-${randomUUID().slice(0, 8)}.yml`);
        writeFileSync(file, `name: ${file.slice(-12, -4)}\nnodes:\n  R1:\n    type: docker\n    image: ${host}\n    properties: ${properties}\n`);
        const r = await runInProcess(['lab', 'up', file], cliEnv(home, { EMUCTL_URL: d.url }));
        assert.equal(r.code, 1, r.stdout + r.stderr);
        assert.match(r.stderr, message);
        assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line on stderr: ${r.stderr}`);
        const projects = (await d.api('GET', '/v2/projects')).body as { name: string; project_id: string }[];
        const project = projects.find((p) => p.name === file.slice(-12, -4));
        if (project) {
          assert.deepEqual((await d.api('GET', `/v2/projects/${project.project_id}/nodes`)).body, [], 'no node made');
          await d.api('DELETE', `/v2/projects/${project.project_id}`);
        }
      }
    } finally {
      removeTempHome(home);
    }
  });

  it('an imported .gns3project carrying the escape, privileged and SYS_ADMIN: the project opens, those nodes refuse to start (409 naming the property), the plain one runs the escape harmlessly', async () => {
    const marker = join(tmp, 'archive-marker');
    const ids = { priv: randomUUID(), caps: randomUUID(), plain: randomUUID(), former: randomUUID() };
    const label = (text: string) => ({ rotation: 0, style: '', text, x: 0, y: -25 });
    const node = (id: string, name: string, properties: Record<string, unknown>) => ({
      compute_id: 'local', console_auto_start: false, custom_adapters: [], first_port_name: null, height: 59, label: label(name), locked: false, name, node_id: id,
      node_type: 'docker', port_name_format: 'Ethernet{0}', port_segment_size: 0, width: 65, x: 0, y: 0, z: 1, console_type: 'telnet', symbol: ':/symbols/docker_guest.svg',
      properties: { image: host, adapters: 1, start_command: 'sh /probe/escape.sh', extra_volumes: ['/probe'], ...properties },
    });
    const topology = {
      auto_close: true, auto_open: false, auto_start: false, name: 'escape', project_id: randomUUID(), revision: 9, scene_height: 1000, scene_width: 2000, type: 'topology', version: '2.2.42',
      topology: {
        computes: [], drawings: [], links: [],
        nodes: [
          node(ids.priv, 'PRIV', { privileged: true }),
          node(ids.caps, 'CAPS', { cap_add: ['NET_ADMIN', 'SYS_ADMIN'] }),
          node(ids.plain, 'PLAIN', {}),
          // emuctl's former default, in every project it saved: it asked for nothing, so it gets today's default.
          node(ids.former, 'FORMER', { cap_add: ['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN'] }),
        ],
      },
    };
    const archive = rawZip([
      { name: 'project.gns3', data: JSON.stringify(topology) },
      ...Object.values(ids).map((id) => ({ name: `project-files/docker/${id}/probe/escape.sh`, data: escapeScript(marker) })),
    ]);
    const pid = randomUUID();
    const imported = await fetch(`${d.url}/v2/projects/${pid}/import?name=escape-${pid.slice(0, 8)}`, { method: 'POST', body: new Uint8Array(archive) });
    assert.equal(imported.status, 201, await imported.text());
    assert.equal((await d.api('POST', `/v2/projects/${pid}/open`, {})).status, 201);
    const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body as { name: string; node_id: string; properties: Record<string, unknown> }[];
    const byName = (name: string) => nodes.find((n) => n.name === name)!;
    for (const [name, field] of [['PRIV', 'privileged'], ['CAPS', 'cap_add']]) {
      const n = byName(name);
      assert.equal(await containerOf(pid, n.node_id), '', `${name}: no container is made for it`);
      const start = await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/start`, {});
      assert.equal(start.status, 409, start.text);
      assert.match(start.body.message, new RegExp(`${name} cannot start: ${field}: `));
      assert.equal(await containerOf(pid, n.node_id), '');
    }
    const all = await d.api('POST', `/v2/projects/${pid}/nodes/start`, {});
    assert.equal(all.status, 409, 'starting the whole project names the refused nodes');
    for (const name of ['PLAIN', 'FORMER']) {
      const n = byName(name);
      const state = await onCompute(pid, n.node_id);
      made.add(state.container_id);
      assert.deepEqual(state.cap_add, ['NET_ADMIN', 'NET_RAW'], name);
      const log = join(state.node_directory as string, 'probe', 'probe.log');
      await waitFor(`the imported probe of ${name} to run`, () => existsSync(log) && readFileSync(log, 'utf8').includes('PROBE-DONE'));
      assert.match(readFileSync(log, 'utf8'), /MOUNT-REFUSED[\s\S]*AGENT-REFUSED/, name);
    }
    assert.equal(existsSync(marker), false, 'the host ran nothing');
    // Brought within bounds, the node starts.
    const fix = await d.api('PUT', `/v2/projects/${pid}/nodes/${byName('CAPS').node_id}`, { properties: { cap_add: ['NET_ADMIN', 'NET_RAW'] } });
    assert.equal(fix.status, 200, fix.text);
    const fixed = await d.api('POST', `/v2/projects/${pid}/nodes/${byName('CAPS').node_id}/start`, {});
    assert.equal(fixed.status, 200, fixed.text);
    made.add(await containerOf(pid, byName('CAPS').node_id));
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}`)).status, 204);
  });
});

describe('docker containment: the operator widens it', () => {
  it('docker_unsafe_caps warns once at start and lets privileged and SYS_ADMIN through, still hardened; docker_registries lets a listed registry through', async () => {
    const port = await closedPort();
    const d = await startTestDaemon({ env: { ...ENV, EMUCTL_DOCKER_UNSAFE_CAPS: '1', EMUCTL_DOCKER_REGISTRIES: `localhost:${port}` } });
    const made: string[] = [];
    try {
      assert.equal(d.log().match(/docker_unsafe_caps is on/g)?.length, 1, d.log());
      const pid = await createProject(d, 'widened');
      const n = await createNode(d, pid, 'W1', 'docker', { compute_id: 'local', properties: { image: await testImage('host'), privileged: true, cap_add: ['NET_ADMIN', 'SYS_ADMIN'] } });
      made.push(n.properties.container_id);
      const h = (await docker.getContainer(n.properties.container_id).inspect()).HostConfig as Docker.HostConfig & { CgroupnsMode?: string };
      assert.equal(h.Privileged, true);
      assert.deepEqual(h.CapAdd, ['NET_ADMIN', 'SYS_ADMIN']);
      assert.ok(h.SecurityOpt?.includes('no-new-privileges:true'), JSON.stringify(h.SecurityOpt));
      assert.equal(h.CgroupnsMode, 'private');
      // Listed: it reaches Docker, which finds nothing listening there (loopback only).
      const listed = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'L', node_type: 'docker', compute_id: 'local', properties: { image: `localhost:${port}/x` } });
      assert.equal(listed.status, 409, listed.text);
      assert.match(listed.body.message, /could not be pulled/);
      const other = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'L', node_type: 'docker', compute_id: 'local', properties: { image: `localhost:${port + 1}/x` } });
      assert.equal(other.status, 400, other.text);
    } finally {
      await d.stop();
      for (const id of made) await docker.getContainer(id).remove({ force: true }).catch(() => undefined);
      removeHome(d.home);
    }
  });
});
