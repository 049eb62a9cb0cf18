// examples/ospf-triangle.yml end to end (issues 19 and 30): three real FRR routers and two busybox
// hosts on the local Docker engine, built by `lab up` from the example as shipped, a generated lab
// (topology and `modules: [ospf]`: emuctl writes every address and frr.conf; only the images
// replaced, through the ${FRR_IMAGE} and ${HOST_IMAGE} variables the frr and linux devices read).
// OSPF converges over the dataplane's links (every router holds every loopback and host LAN),
// `lab wait --ping all` passes, vtysh through the exec route, a suspended link routed around, OSPF
// seen by tshark in a link capture, and nothing left after `lab down`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generatedFiles } from '../../src/lab/generated/configs.js';
import { parseLab } from '../../src/lab/parse.js';
import { cliEnv, jsonOf, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { frameCount } from '../helpers/tshark.js';
import { testImage } from '../helpers/docker-images.js';
import { eventually } from '../helpers/retry.js';

const run = promisify(execFile);
// Ranges no other test file uses (5 docker nodes: a console and an aux port each).
const ENV = { EMUCTL_UDP_PORT_RANGE: '24100-24199', EMUCTL_CONSOLE_PORT_RANGE: '29100-29149' };
const LAB = fileURLToPath(new URL('../../../examples/ospf-triangle.yml', import.meta.url));
/** What emuctl generates for a node of the example (`emuctl lab config` prints the same). */
const GENERATED = (node: string, path: string) => generatedFiles(parseLab(readFileSync(LAB, 'utf8'), LAB, {}), node).find((f) => f.path === path)!.text;
// The addresses the example's pools give (the golden test of the allocation keeps them so).
const LOOPBACKS = ['198.18.0.1/32', '198.18.0.2/32', '198.18.0.3/32'];
const HOST_LANS = ['198.19.0.0/24', '198.19.1.0/24'];
const H1 = '198.19.0.2';
const H2 = '198.19.1.2';

/** The FRR and busybox test images (test/helpers/docker-images.ts builds them offline from Debian packages, cached by recipe). */
async function testImages(): Promise<{ frr: string; host: string }> {
  const [frr, host] = await Promise.all([testImage('frr'), testImage('host')]);
  return { frr, host };
}

describe('end to end: examples/ospf-triangle.yml, three FRR routers in a triangle and two hosts', () => {
  let d: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let images: { frr: string; host: string };
  let pid: string;
  const containers = new Map<string, string>();
  const cli = (...argv: string[]) => runInProcess(argv, env);
  const ok = async (...argv: string[]) => {
    const r = await cli(...argv);
    assert.equal(r.code, 0, `emuctl ${argv.join(' ')}: ${r.stderr}${r.stdout}`);
    return r;
  };
  const nodes = async () => (await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[];
  const links = async () => (await d.api('GET', `/v2/projects/${pid}/links`)).body as any[];
  /** The link between two nodes' adapters. */
  const linkBetween = async (a: [string, number], b: [string, number]) => {
    const ids = new Map((await nodes()).map((n) => [n.name, n.node_id]));
    const found = (await links()).find((l) => [a, b].every(([name, adapter]) => l.nodes.some((e: any) => e.node_id === ids.get(name) && e.adapter_number === adapter)));
    assert.ok(found, `a link ${a.join(':')}-${b.join(':')}`);
    return found;
  };
  const fullNeighbours = async (router: string) => {
    const r = await ok('node', 'exec', router, '-p', 'ospf-triangle', '--', 'vtysh', '-c', 'show ip ospf neighbor');
    return { count: (r.stdout.match(/\bFull\//g) ?? []).length, text: r.stdout };
  };

  before(async () => {
    images = await testImages();
    d = await startTestDaemon({ env: ENV });
    home = tempHome();
    // EMUCTL_TIMEOUT: on a loaded 2-core machine the daemon answers execs and starts slowly.
    env = cliEnv(home, { EMUCTL_URL: d.url, FRR_IMAGE: images.frr, HOST_IMAGE: images.host, EMUCTL_TIMEOUT: '120' });
  });
  after(async () => {
    if (d) {
      await cli('lab', 'down', LAB).catch(() => undefined);
      await d.stop();
      removeHome(d.home);
    }
    for (const id of containers.values()) await run('docker', ['rm', '-f', '-v', id]).catch(() => undefined);
    if (home) removeTempHome(home);
  });

  it('lab up creates the routers with their images, volumes and startup files, links them and starts them all', async () => {
    const up = await ok('lab', 'up', LAB);
    assert.match(up.stdout, /\+ node R1 \(docker on local\)/);
    assert.match(up.stdout, /> start R1, R2, R3, H1, H2/);
    pid = jsonOf(await ok('project', 'show', 'ospf-triangle', '--json')).project_id;
    const all = await nodes();
    assert.deepEqual(all.map((n) => `${n.name} ${n.node_type} ${n.status}`).sort(),
      ['H1 docker started', 'H2 docker started', 'R1 docker started', 'R2 docker started', 'R3 docker started']);
    const r1 = all.find((n) => n.name === 'R1');
    assert.equal(r1.properties.image, images.frr);
    assert.equal(r1.properties.adapters, 3);
    assert.deepEqual(r1.properties.extra_volumes, ['/etc/frr']);
    assert.deepEqual(all.find((n) => n.name === 'H2').properties.extra_volumes, ['/lab']);
    for (const n of all) {
      const compute = await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${n.node_id}`);
      assert.equal(compute.status, 200, compute.text);
      containers.set(n.name, compute.body.container_id);
    }
    // The startup file reached the node directory (and so the container's /etc/frr) before the start.
    const file = await d.api('GET', `/v2/projects/${pid}/nodes/${r1.node_id}/files/etc/frr/frr.conf`);
    assert.equal(file.text, GENERATED('R1', '/etc/frr/frr.conf'));
    assert.match(file.text, /^interface eth2\n description hosts: H1\n ip address 198\.19\.0\.1\/24\n ip ospf area 0\.0\.0\.0\n ip ospf passive\n/m);
    const inside = await ok('node', 'exec', 'R3', '-p', 'ospf-triangle', '--', 'cat', '/etc/frr/frr.conf');
    assert.equal(inside.stdout, GENERATED('R3', '/etc/frr/frr.conf'));
    const daemons = await ok('node', 'exec', 'R2', '-p', 'ospf-triangle', '--', 'cat', '/etc/frr/daemons');
    assert.equal(daemons.stdout, GENERATED('R2', '/etc/frr/daemons'));
    assert.match(daemons.stdout, /^ospfd=yes$/m);
    const script = await ok('node', 'exec', 'H2', '-p', 'ospf-triangle', '--', 'cat', '/lab/start.sh');
    assert.equal(script.stdout, GENERATED('H2', '/lab/start.sh'));
    assert.equal((await links()).length, 5);
    // A second lab up finds nothing to change.
    const again = await ok('lab', 'up', LAB);
    assert.match(again.stdout + again.stderr, /No changes: lab ospf-triangle is up to date/);
  });

  it('lab wait --ping all passes once OSPF has converged (the hosts ping each other through the routers, at their generated addresses)', async () => {
    const r = await ok('lab', 'wait', LAB, '--ping', 'all', '--timeout', '180', '--json');
    assert.deepEqual(jsonOf(r).map((o: any) => [o.from, o.to, o.address, o.ok]), [['H1', 'H2', H2, true]]);
    const back = await ok('lab', 'wait', LAB, '--ping', 'H2:H1', '--timeout', '60', '--json');
    assert.deepEqual(jsonOf(back).map((o: any) => [o.from, o.to, o.address, o.ok]), [['H2', 'H1', H1, true]]);
  });

  it('converged: every router holds every loopback and both host LANs, through OSPF', async () => {
    for (const [i, router] of ['R1', 'R2', 'R3'].entries()) {
      await eventually(`${router} to hold every loopback and host LAN`, 60_000, async () => {
        const r = await ok('node', 'exec', router, '-p', 'ospf-triangle', '--', 'vtysh', '-c', 'show ip route ospf json');
        const routes = JSON.parse(r.stdout) as Record<string, { protocol: string; selected?: boolean }[]>;
        for (const prefix of [...LOOPBACKS.filter((_, j) => j !== i), ...HOST_LANS]) {
          assert.ok(routes[prefix]?.some((x) => x.protocol === 'ospf'), `${router} has an OSPF route to ${prefix}: ${r.stdout}`);
        }
        // Its own loopback and host LAN are connected, so they are not selected from OSPF.
        assert.ok(!routes[LOOPBACKS[i]!]?.some((x) => x.selected), `${router}'s own loopback is not an OSPF route`);
      });
    }
  });

  it('node exec R1 -- vtysh -c "show ip ospf neighbor" shows two Full neighbours; a command\'s exit status is the CLI\'s', async () => {
    const seen = await eventually('R1 to hold two Full neighbours', 60_000, async () => {
      const n = await fullNeighbours('R1');
      assert.equal(n.count, 2, n.text);
      return n.text;
    });
    // Router ids are the loopbacks; R1's eth0 goes to R2 (198.18.64.0/31), its eth1 to R3 (198.18.64.4/31).
    assert.match(seen, /198\.18\.0\.2 .*Full\/.* 198\.18\.64\.1 +eth0:198\.18\.64\.0/);
    assert.match(seen, /198\.18\.0\.3 .*Full\/.* 198\.18\.64\.4 +eth1:198\.18\.64\.5/);
    const failing = await cli('node', 'exec', 'H1', '-p', 'ospf-triangle', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3');
    assert.equal(failing.code, 3, failing.stderr);
    // Standard output and error both come back (in the order Docker multiplexed them).
    assert.deepEqual(failing.stdout.split('\n').sort(), ['', 'err', 'out']);
  });

  it('with the R1-R2 link suspended, H1 still reaches H2 (through R3), and a capture on R1-R3 shows OSPF (IP protocol 89)', async () => {
    const r1r3 = await linkBetween(['R1', 1], ['R3', 1]);
    const capture = JSON.parse((await ok('capture', 'start', r1r3.link_id, '-p', 'ospf-triangle', '--json')).stdout);
    const r1r2 = await linkBetween(['R1', 0], ['R2', 0]);
    await ok('link', 'suspend', r1r2.link_id, '-p', 'ospf-triangle');
    // Dead after 4 s: R1 loses R2 (a route through R3 alone proves nothing: it may show while the
    // young adjacency to R2 still settles), then routes to H2's subnet through R3.
    await eventually('R1 to lose its R2 neighbour', 60_000, async () => {
      const n = await fullNeighbours('R1');
      assert.equal(n.count, 1, n.text);
      assert.doesNotMatch(n.text, /198\.18\.0\.2 /);
    });
    await eventually("R1 to route H2's LAN through R3", 60_000, async () => {
      const route = await ok('node', 'exec', 'R1', '-p', 'ospf-triangle', '--', 'ip', 'route', 'get', H2);
      assert.match(route.stdout, /via 198\.18\.64\.4 dev eth1/);
    });
    await ok('lab', 'wait', LAB, '--ping', 'all', '--timeout', '120');
    const path = capture.capture_file_path as string;
    await eventually('OSPF packets in the R1-R3 capture', 30_000, async () => assert.ok(await frameCount(path, 'ip.proto == 89') >= 3));
    await ok('link', 'resume', r1r2.link_id, '-p', 'ospf-triangle');
    await ok('capture', 'stop', r1r3.link_id, '-p', 'ospf-triangle');
  });

  it('lab down removes the lab: no container, and no volume of its nodes, is left', async () => {
    await ok('lab', 'down', LAB);
    assert.equal(containers.size, 5);
    for (const [name, id] of containers) {
      const inspect = await run('docker', ['inspect', id]).then(() => 'exists', (err: Error & { stderr?: string }) => err.stderr ?? err.message);
      assert.match(inspect, /No such object/, `${name}'s container ${id}`);
    }
    const { stdout } = await run('docker', ['ps', '-a', '-q', '--filter', `label=emuctl.project=${pid}`]);
    assert.equal(stdout.trim(), '');
    const volumes = await run('docker', ['volume', 'ls', '-q', '--filter', `label=emuctl.project=${pid}`]);
    assert.equal(volumes.stdout.trim(), '');
  });
});
