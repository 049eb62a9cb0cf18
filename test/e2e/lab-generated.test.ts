// Generated labs end to end (issue 30) on real FRR routers and busybox hosts in the local Docker
// engine: files written by `lab generate` (nothing by hand), brought up by `lab up`, checked by
// `lab wait --ping all`. The generated triangle converges under OSPF; the generated 2-spine,
// 4-leaf eBGP fabric passes, and still passes with a leaf's link to one spine suspended (through
// the other spine). Images: the offline test images through FRR_IMAGE / HOST_IMAGE.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parseLab } from '../../src/lab/parse.js';
import { cliEnv, jsonOf, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { eventually } from '../helpers/retry.js';

const run = promisify(execFile);
// This file's own ranges (28600-28999): 10 docker nodes at most, a console and an aux port each.
const ENV = { EMUCTL_UDP_PORT_RANGE: '28600-28849', EMUCTL_CONSOLE_PORT_RANGE: '28850-28949' };

describe('end to end: generated labs (lab generate, lab up, lab wait --ping all)', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const containers = new Map<string, string>();
  const cli = (...argv: string[]) => runInProcess(argv, env);
  const ok = async (...argv: string[]) => {
    const r = await cli(...argv);
    assert.equal(r.code, 0, `emuctl ${argv.join(' ')}: ${r.stderr}${r.stdout}`);
    return r;
  };
  /** Records the lab's containers (to prove lab down removes them). */
  const recordContainers = async (project: string) => {
    const pid = jsonOf(await ok('project', 'show', project, '--json')).project_id as string;
    for (const n of (await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[]) {
      if (n.node_type !== 'docker') continue;
      const compute = await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${n.node_id}`);
      assert.equal(compute.status, 200, compute.text);
      containers.set(`${project}/${n.name}`, compute.body.container_id);
    }
    return pid;
  };
  const assertGone = async (project: string) => {
    for (const [name, id] of containers) {
      if (!name.startsWith(`${project}/`)) continue;
      const inspect = await run('docker', ['inspect', id]).then(() => 'exists', (err: Error & { stderr?: string }) => err.stderr ?? err.message);
      assert.match(inspect, /No such object/, `${name}'s container ${id}`);
    }
  };
  const pingAll = async (file: string, pairs: number, timeout = '180') => {
    const r = await ok('lab', 'wait', file, '--ping', 'all', '--timeout', timeout, '--json');
    const outcomes = jsonOf(r) as any[];
    assert.equal(outcomes.length, pairs);
    assert.deepEqual(outcomes.filter((o) => !o.ok), []);
    return outcomes;
  };

  before(async () => {
    // The image script takes seconds: it runs while the daemon starts (awaited below, its failure too).
    const images = Promise.all([testImage('frr'), testImage('host')]);
    images.catch(() => undefined);
    d = await startTestDaemon({ env: ENV });
    const [frr, host] = await images;
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-generated-'));
    // EMUCTL_TIMEOUT: starting ten containers answers slowly on a loaded 2-core machine.
    env = cliEnv(home, { EMUCTL_URL: d.url, FRR_IMAGE: frr, HOST_IMAGE: host, EMUCTL_TIMEOUT: '120' });
  });
  after(async () => {
    if (d) {
      for (const file of ['ring-3.yml', 'clos.yml']) await cli('lab', 'down', join(dir, file)).catch(() => undefined);
      await d.stop();
      removeHome(d.home);
    }
    for (const id of containers.values()) await run('docker', ['rm', '-f', '-v', id]).catch(() => undefined);
    if (home) removeTempHome(home);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a generated OSPF triangle converges and every pair of its hosts pings', async () => {
    const file = join(dir, 'ring-3.yml');
    await ok('lab', 'generate', 'ring', '--routers', '3', '--hosts-per-router', '1', '--routing', 'ospf', '-o', file);
    const up = await ok('lab', 'up', file);
    assert.match(up.stdout, /> start .*R1/);
    await recordContainers('ring-3');
    await pingAll(file, 3);
    const neighbours = await eventually('R1 to hold two Full OSPF neighbours', 60_000, async () => {
      const r = await ok('node', 'exec', 'R1', '-p', 'ring-3', '--', 'vtysh', '-c', 'show ip ospf neighbor');
      assert.equal((r.stdout.match(/\bFull\//g) ?? []).length, 2, r.stdout);
      return r.stdout;
    });
    // The neighbours are the other routers, by their generated router ids (their loopbacks).
    const spec = parseLab(readFileSync(file, 'utf8'), file, env);
    for (const other of ['R2', 'R3']) assert.ok(neighbours.includes(spec.generated!.nodes.find((n) => n.name === other)!.routerId!), `${other} in\n${neighbours}`);
    await ok('lab', 'down', file);
    await assertGone('ring-3');
  });

  it('a generated 2-spine, 4-leaf eBGP fabric passes --ping all, and again with L1-S1 suspended (through S2)', async () => {
    const file = join(dir, 'clos.yml');
    await ok('lab', 'generate', 'clos', '--spines', '2', '--leaves', '4', '--hosts-per-leaf', '1', '--routing', 'bgp', '-o', file);
    await ok('lab', 'up', file);
    const pid = await recordContainers('clos-2x4');
    await pingAll(file, 6);
    const spec = parseLab(readFileSync(file, 'utf8'), file, env);
    const l1 = spec.generated!.nodes.find((n) => n.name === 'L1')!;
    const toS1 = l1.interfaces.find((i) => i.peers.some((p) => p.node === 'S1'))!;
    const toS2 = l1.interfaces.find((i) => i.peers.some((p) => p.node === 'S2'))!;
    const h4 = (await import('../../src/lab/ping-all.js')).hostAddresses(spec).get('H4')!;
    // The link L1-S1: the one between L1's and S1's nodes on the server.
    const ids = new Map(((await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[]).map((n) => [n.name, n.node_id]));
    const link = ((await d.api('GET', `/v2/projects/${pid}/links`)).body as any[])
      .find((l) => ['L1', 'S1'].every((name) => l.nodes.some((e: any) => e.node_id === ids.get(name))));
    assert.ok(link, 'a link between L1 and S1');
    await ok('link', 'suspend', link.link_id, '-p', 'clos-2x4');
    await eventually(`L1 to route H4 (${h4}) through S2 (${toS2.name}) alone`, 90_000, async () => {
      const route = await ok('node', 'exec', 'L1', '-p', 'clos-2x4', '--', 'ip', 'route', 'show', 'match', h4);
      assert.match(route.stdout, new RegExp(`dev ${toS2.name}\\b`), route.stdout);
      assert.doesNotMatch(route.stdout, new RegExp(`dev ${toS1.name}\\b`), route.stdout);
    });
    await pingAll(file, 6, '120');
    await ok('link', 'resume', link.link_id, '-p', 'clos-2x4');
    await ok('lab', 'down', file);
    await assertGone('clos-2x4');
  });
});
