// The VLAN module end to end (modules: [vlan]) on real FRR and busybox containers and emuctl's own
// switch: two VLANs on one generated switch, R1 on a trunk carrying both (router on a stick), H1
// and H2 in red, H3 in blue. The switch side: a capture on the trunk link shows each host's ARP
// tagged with its VLAN's id, and a blue port given a red address still cannot reach a red host.
// The router side: R1's sub-interfaces on its one link (eth0.10, eth0.20) exist (made before FRR starts), every pair of hosts pings
// through R1 (`lab wait --ping all`), and with R1's blue sub-interface down red cannot reach blue.
// On a kernel without 802.1Q sub-interfaces (CONFIG_VLAN_8021Q) the router side checks instead that
// `lab wait --configured` reports R1 unconfigured, naming the sub-interface it lacks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { cliEnv, jsonOf, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { eventually } from '../helpers/retry.js';
import { frameCount } from '../helpers/tshark.js';

const run = promisify(execFile);
// This file's own ranges (24000-24099): 4 docker nodes, a console and an aux port each.
const ENV = { EMUCTL_UDP_PORT_RANGE: '24000-24069', EMUCTL_CONSOLE_PORT_RANGE: '24070-24099' };

const LAB = `name: vlan-stick-e2e
addressing: {loopback: 198.18.0.0/24, p2p: 198.18.64.0/18, lan: 198.19.0.0/16}
modules: [vlan, ospf]
vlans:
  red: {id: 10}
  blue: {id: 20}
nodes:
  R1: {device: frr}
  H1: {device: linux}
  H2: {device: linux}
  H3: {device: linux}
links:
  - lan: [R1, H1, H2, H3]
    vlan: {R1: [red, blue], H1: red, H2: red, H3: blue}
`;
// The generated plan (vlan-stick golden file's rules): red 198.19.0.0/24, blue 198.19.1.0/24, R1 .1 in each.
const H1 = '198.19.0.2', H2 = '198.19.0.3', H3 = '198.19.1.2', R1_RED = '198.19.0.1', R1_BLUE = '198.19.1.1';

describe('end to end: generated VLANs (a router on a stick between two VLANs of one switch)', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let file: string;
  let env: NodeJS.ProcessEnv;
  let pid: string;
  const containers: string[] = [];
  const cli = (...argv: string[]) => runInProcess(argv, env);
  const ok = async (...argv: string[]) => {
    const r = await cli(...argv);
    assert.equal(r.code, 0, `emuctl ${argv.join(' ')}: ${r.stderr}${r.stdout}`);
    return r;
  };
  // A generous exec timeout: docker exec answers slowly on a loaded machine.
  const exec = (node: string, ...command: string[]) => cli('node', 'exec', node, '-p', 'vlan-stick-e2e', '-t', '120', '--', ...command);
  const exitOf = async (node: string, ...command: string[]) => {
    const r = await exec(node, ...command);
    return { code: r.code, text: `${node}: ${command.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}` };
  };
  /** The link between R1 and the LAN's switch: the trunk. */
  const trunkLink = async () => {
    const ids = new Map(((await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[]).map((n) => [n.name, n.node_id]));
    const link = ((await d.api('GET', `/v2/projects/${pid}/links`)).body as any[])
      .find((l) => ['R1', 'LAN1'].every((name) => l.nodes.some((e: any) => e.node_id === ids.get(name))));
    assert.ok(link, 'a link between R1 and LAN1');
    return link;
  };

  before(async () => {
    // The image script takes seconds: it runs while the daemon starts (awaited below, its failure too).
    const images = Promise.all([testImage('frr'), testImage('host')]);
    images.catch(() => undefined);
    d = await startTestDaemon({ env: ENV });
    const [frr, host] = await images;
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-vlan-'));
    file = join(dir, 'vlan.yml');
    writeFileSync(file, LAB);
    env = cliEnv(home, { EMUCTL_URL: d.url, FRR_IMAGE: frr, HOST_IMAGE: host, EMUCTL_TIMEOUT: '120' });
    await ok('lab', 'up', file);
    pid = jsonOf(await ok('project', 'show', 'vlan-stick-e2e', '--json')).project_id as string;
    for (const n of (await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[]) {
      if (n.node_type !== 'docker') continue;
      containers.push((await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${n.node_id}`)).body.container_id);
    }
    assert.equal(containers.length, 4);
  });
  after(async () => {
    if (d) {
      if (file) await cli('lab', 'down', file).catch(() => undefined);
      await d.stop();
      removeHome(d.home);
    }
    for (const id of containers) await run('docker', ['rm', '-f', '-v', id]).catch(() => undefined);
    if (home) removeTempHome(home);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the switch: the trunk carries red tagged 10 and blue tagged 20; a blue port cannot reach red even with a red address', async () => {
    const trunk = await trunkLink();
    const capture = await d.api('POST', `/v2/projects/${pid}/links/${trunk.link_id}/start_capture`, { capture_file_name: 'trunk.pcap' });
    assert.equal(capture.status, 201, capture.text);
    // H1 and H2 reach each other through their access ports; their ARP broadcasts flood to the trunk.
    await eventually('H1 to ping H2 in red', 180_000, async () => {
      const r = await exitOf('H1', 'ping', '-c', '1', '-W', '2', H2);
      assert.equal(r.code, 0, r.text);
    });
    // H3 asks for its gateway on blue: its ARP request crosses the trunk tagged 20, whatever R1 answers.
    await exec('H3', 'ping', '-c', '2', '-W', '1', R1_BLUE);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links/${trunk.link_id}/stop_capture`, {})).status, 201);
    const pcap = capture.body.capture_file_path as string;
    assert.ok((await frameCount(pcap, `vlan.id == 10 && arp.src.proto_ipv4 == ${H1}`)) >= 1, 'H1\'s ARP on the trunk tagged 10');
    assert.ok((await frameCount(pcap, `vlan.id == 20 && arp.src.proto_ipv4 == ${H3}`)) >= 1, 'H3\'s ARP on the trunk tagged 20');
    assert.equal(await frameCount(pcap, `!vlan && (arp.src.proto_ipv4 == ${H1} || arp.src.proto_ipv4 == ${H3})`), 0, 'no host frame leaves the trunk untagged');
    assert.equal(await frameCount(pcap, `vlan.id == 20 && arp.src.proto_ipv4 == ${H1}`), 0, 'red never tagged as blue');
    // H3 (a blue port) with an address in red's subnet: the switch keeps it out of red; H2 (red) is the control.
    assert.equal((await exec('H3', 'ip', 'addr', 'add', '198.19.0.99/24', 'dev', 'eth0')).code, 0);
    assert.notEqual((await exec('H3', 'ping', '-c', '2', '-W', '1', H1)).code, 0, 'H3 on a blue port reached H1 in red');
    assert.equal((await exec('H2', 'ping', '-c', '2', '-W', '2', H1)).code, 0, 'H2 in red reaches H1');
    assert.equal((await exec('H3', 'ip', 'addr', 'del', '198.19.0.99/24', 'dev', 'eth0')).code, 0);
  });

  it('the router: sub-interfaces eth0.10 and eth0.20, every pair of hosts pings through R1, and not with R1\'s blue sub-interface down', async (t) => {
    // The kernel is the host's: without 802.1Q (CONFIG_VLAN_8021Q) no container can make a sub-interface.
    // Then the router must be reported as not configured, naming the sub-interface, never run half-configured unseen.
    const probe = await exec('R1', 'ip', 'link', 'add', 'link', 'eth0', 'name', 'probe99', 'type', 'vlan', 'id', '99');
    if (probe.code !== 0) {
      t.diagnostic(`this kernel cannot make 802.1Q sub-interfaces (${(probe.stderr + probe.stdout).trim().split('\n').pop()}): checking that R1 is reported unconfigured`);
      assert.match(probe.stderr + probe.stdout, /Unknown device type|not supported|Operation not supported/i);
      const w = await cli('lab', 'wait', file, '--configured', '--timeout', '20');
      assert.notEqual(w.code, 0, `lab wait --configured passed with R1 lacking its sub-interfaces: ${w.stdout}`);
      assert.match(w.stderr + w.stdout, /R1: lacks interface eth0\.10 \(no such interface in the container\), interface eth0\.20 \(no such interface in the container\)/);
      return;
    }
    assert.equal((await exec('R1', 'ip', 'link', 'delete', 'probe99')).code, 0);
    for (const [name, id] of [['eth0.10', 10], ['eth0.20', 20]] as const) {
      const r = await exec('R1', 'ip', '-d', 'link', 'show', name);
      assert.match(r.stdout, new RegExp(`vlan protocol 802\\.1Q id ${id}\\b`), `R1 has no ${name} (802.1Q id ${id}): a kernel without CONFIG_VLAN_8021Q cannot make sub-interfaces. ${r.stderr}${r.stdout}`);
    }
    const outcomes = jsonOf(await ok('lab', 'wait', file, '--ping', 'all', '--timeout', '120', '--json')) as any[];
    assert.equal(outcomes.length, 3);
    assert.deepEqual(outcomes.filter((o) => !o.ok), []);
    assert.equal((await exec('H1', 'ping', '-c', '1', '-W', '2', H3)).code, 0, 'H1 (red) reaches H3 (blue) through R1');
    assert.equal((await exec('R1', 'ip', 'link', 'set', 'eth0.20', 'down')).code, 0);
    assert.notEqual((await exec('H1', 'ping', '-c', '2', '-W', '1', H3)).code, 0, 'H1 reached H3 with R1\'s blue sub-interface down');
    assert.equal((await exec('H1', 'ping', '-c', '1', '-W', '2', R1_RED)).code, 0, 'H1 still reaches R1 in red');
    assert.equal((await exec('R1', 'ip', 'link', 'set', 'eth0.20', 'up')).code, 0);
  });

  it('lab down removes every container', async () => {
    await ok('lab', 'down', file);
    for (const id of containers) {
      const inspect = await run('docker', ['inspect', id]).then(() => 'exists', (err: Error & { stderr?: string }) => err.stderr ?? err.message);
      assert.match(inspect, /No such object/, `container ${id}`);
    }
  });
});
