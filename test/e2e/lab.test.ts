// Labs as code against real daemons (issue 12): a controller with its local compute and a
// second, compute-only daemon registered as `lab-b`, shared by every lab verb and by the
// examples/ labs (file → up → wait → inspect → graph → save → down). VPCS are real, pings
// cross the userspace switches, and what the CLI says is checked against the server's state.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testGuest } from '../helpers/qemu-guest.js';
import { assertFails, cliEnv, jsonOf, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';

// Ranges no other test file uses.
const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '22000-22299', EMUCTL_CONSOLE_PORT_RANGE: '28000-28049', EMUCTL_QEMU_ACCEL: 'tcg' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '22300-22499', EMUCTL_CONSOLE_PORT_RANGE: '28050-28079', EMUCTL_QEMU_ACCEL: 'tcg' };

const example = (name: string) => fileURLToPath(new URL(`../../../examples/${name}.yml`, import.meta.url));

describe('labs as code against real daemons', () => {
  let controller: TestDaemon;
  let compute: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-'));
  const run = (...argv: string[]) => runInProcess(argv, env);
  const ok = async (...argv: string[]) => {
    const r = await run(...argv);
    assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}${r.stdout}`);
    return r;
  };
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const projectNamed = async (name: string) => ((await controller.api('GET', '/v2/projects')).body as any[]).find((p) => p.name === name);
  const nodesOf = async (pid: string) => (await controller.api('GET', `/v2/projects/${pid}/nodes`)).body as any[];
  const linksOf = async (pid: string) => (await controller.api('GET', `/v2/projects/${pid}/links`)).body as any[];

  before(async () => {
    [controller, compute] = await Promise.all([
      startTestDaemon({ env: CONTROLLER_ENV }),
      startTestDaemon({ flags: { role: 'compute' }, env: COMPUTE_ENV }),
    ]);
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: controller.url });
    await ok('compute', 'add', 'lab-b', '--url', compute.url);
  });
  after(async () => {
    await Promise.all([controller?.stop(), compute?.stop()]);
    removeHome(controller.home);
    removeHome(compute.home);
    removeTempHome(home);
    removeTempHome(dir);
  });

  describe('examples/vlans-trunk.yml: two switches, a dot1q trunk, two VLANs in one subnet', () => {
    const lab = example('vlans-trunk');
    let pid: string;

    it('up --dry-run prints the plan and creates nothing', async () => {
      const r = await ok('lab', 'up', lab, '--dry-run');
      assert.match(r.stdout, /^Plan for lab vlans-trunk \(13 to add, 0 to change, 0 to delete, 4 to start\):\n {2}\+ project vlans-trunk\n {2}\+ node SW1 \(ethernet_switch on local\)\n/);
      assert.match(r.stdout, /\n {2}\+ link SW1:0\/7-SW2:0\/7\n {2}\+ capture SW1:0\/7-SW2:0\/7\n {2}> start PC1, PC2, PC3, PC4\n$/);
      assert.match(r.stderr, /dry run: nothing was changed/);
      assert.equal(await projectNamed('vlans-trunk'), undefined);
    });

    it('up applies the plan, one line per step, and starts the PCs', async () => {
      const r = await ok('lab', 'up', lab);
      const plan = r.stdout.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.trim());
      const done = r.stdout.split('\n').filter((l) => l.startsWith('✓ ') && !l.startsWith('✓ Lab')).map((l) => l.slice(2));
      assert.deepEqual(done, plan);
      pid = (await projectNamed('vlans-trunk')).project_id;
      assert.match(r.stdout, new RegExp(`✓ Lab vlans-trunk is up \\(project ${pid}\\)\\n$`));
      const nodes = await nodesOf(pid);
      assert.deepEqual(nodes.map((n) => `${n.name} ${n.status}`).sort(), ['PC1 started', 'PC2 started', 'PC3 started', 'PC4 started', 'SW1 started', 'SW2 started']);
      const sw1 = nodes.find((n) => n.name === 'SW1');
      assert.deepEqual(sw1.properties.ports_mapping.map((p: any) => `${p.port_number}:${p.type}:${p.vlan}`),
        ['0:access:10', '1:access:10', '2:access:10', '3:access:10', '4:access:20', '5:access:20', '6:access:20', '7:dot1q:1']);
      const trunk = (await linksOf(pid)).find((l) => l.nodes.every((e: any) => e.port_number === 7));
      assert.equal(trunk.capturing, true);
    });

    it('a second up changes nothing and says so', async () => {
      const before = await nodesOf(pid);
      const r = await ok('lab', 'up', lab);
      assert.equal(r.stdout, '✓ No changes: lab vlans-trunk is up to date\n');
      assert.deepEqual(jsonOf(await run('lab', 'up', lab, '--json')), { lab: 'vlans-trunk', project_id: pid, changed: false, applied: false, plan: [] });
      assert.deepEqual((await nodesOf(pid)).map((n) => n.node_id).sort(), before.map((n) => n.node_id).sort());
    });

    it('wait: pings cross the trunk within a VLAN; a pair in another VLAN fails, named', async () => {
      const r = await ok('lab', 'wait', lab, '--ping', 'PC1:PC3', '--ping', 'PC4:PC2', '--timeout', '30');
      assert.match(r.stdout, /✓ PC1 pings PC3 \(10\.0\.0\.3\) after [\d.]+ s\n/);
      assert.match(r.stdout, /✓ PC4 pings PC2 \(10\.0\.0\.2\) after [\d.]+ s\n/);
      const fail = await run('lab', 'wait', lab, '--ping', 'PC1:PC3', '--ping', 'PC1:PC2', '--timeout', '3');
      assert.equal(fail.code, 1, fail.stderr);
      assert.match(fail.stderr, /^emuctl: no ping within 3 s: PC1 → PC2 \(10\.0\.0\.2\): host \(10\.0\.0\.2\) not reachable\n$/);
    });

    it('inspect: each node with type, status, compute, console and addresses; links with capture state', async () => {
      const json = jsonOf(await run('lab', 'inspect', lab, '--json'));
      assert.equal(json.project_id, pid);
      const pc1 = json.nodes.find((n: any) => n.name === 'PC1');
      assert.equal(pc1.ip, '10.0.0.1/24');
      assert.equal(pc1.status, 'started');
      assert.match(pc1.console, /^127\.0\.0\.1:280\d\d$/);
      assert.deepEqual(json.links.map((l: any) => `${l.link} ${l.capturing}`), ['PC1:0/0-SW1:0/0 false', 'PC2:0/0-SW1:0/4 false', 'PC3:0/0-SW2:0/0 false', 'PC4:0/0-SW2:0/4 false', 'SW1:0/7-SW2:0/7 true']);
      const human = (await ok('lab', 'inspect', 'vlans-trunk')).stdout;
      assert.match(human, /^Lab vlans-trunk \(project [0-9a-f-]{36}\)\nNODE +TYPE +STATUS +COMPUTE +CONSOLE +ADDRESSES\n/);
      assert.match(human, /\nPC2 +vpcs +started +\S+ +127\.0\.0\.1:\d+ +10\.0\.0\.2\/24\n/);
      assert.match(human, /\nSW1:0\/7-SW2:0\/7 +- +no +\S+SW1_0-7_to_SW2_0-7\.pcap\n/);
      assert.deepEqual(jsonOf(await run('lab', 'inspect', lab, 'PC3', 'SW2:0/7-SW1:0/7', '--json')).nodes.map((n: any) => n.name), ['PC3']);
    });

    it('graph: ASCII boxes from the file, DOT, SVG through Graphviz, Mermaid, to a file with -o', async () => {
      const ascii = (await ok('lab', 'graph', lab)).stdout;
      assert.match(ascii, /^vlans-trunk\n┌─+┐\n│ SW1  ethernet_switch │\n└─+┘\n {2}├── 0\/0 ── PC1 0\/0 \(vpcs 10\.0\.0\.1\/24\)\n/);
      assert.equal(ascii.match(/── /g)!.length / 2, 5, 'each of the five links drawn once');
      const dot = (await ok('lab', 'graph', 'vlans-trunk', '--format', 'dot')).stdout;
      assert.match(dot, /^graph "vlans-trunk" \{\n/);
      assert.match(dot, /"SW1" -- "SW2" \[taillabel="0\/7", headlabel="0\/7"\];/);
      const svgPath = join(dir, 'lab.svg');
      await ok('lab', 'graph', lab, '-f', 'svg', '-o', svgPath);
      const svg = readFileSync(svgPath, 'utf8');
      assert.match(svg, /<svg[\s\S]*>PC4<\/text>[\s\S]*<\/svg>/);
      const mermaid = (await ok('lab', 'graph', lab, '-f', 'mermaid')).stdout;
      assert.match(mermaid, /^graph LR\n {2}n0\["SW1<br\/>ethernet_switch"\]\n/);
      assert.match(mermaid, /\n {2}n0 ---\|"0\/7 – 0\/7"\| n1\n/);
    });

    it('save, then up of the saved file as a new project, gives the same lab', async () => {
      const saved = join(dir, 'saved.yml');
      await ok('lab', 'save', 'vlans-trunk', '-o', saved);
      const text = readFileSync(saved, 'utf8');
      assert.match(text, /^# yaml-language-server: \$schema=\S+schemas\/lab\.schema\.json\nname: vlans-trunk\n/);
      const copy = file('copy.yml', text.replace('name: vlans-trunk', 'name: vlans-copy'));
      await ok('lab', 'up', copy);
      const [a, b] = await Promise.all(['vlans-trunk', 'vlans-copy'].map(async (name) => {
        const inspection = jsonOf(await run('lab', 'inspect', name, '--json'));
        return {
          nodes: inspection.nodes.map((n: any) => [n.name, n.type, n.status, n.compute, n.ip, n.gateway, n.dns]),
          links: inspection.links.map((l: any) => [l.link, l.filters, l.suspended, l.capturing]),
        };
      }));
      assert.deepEqual(b, a);
      const pidCopy = (await projectNamed('vlans-copy')).project_id;
      const ports = async (p: string) => (await nodesOf(p)).filter((n) => n.node_type === 'ethernet_switch').map((n) => [n.name, n.properties.ports_mapping]).sort();
      assert.deepEqual(await ports(pidCopy), await ports(pid));
      assert.equal((await ok('lab', 'up', copy)).stdout, '✓ No changes: lab vlans-copy is up to date\n');
      await ok('lab', 'wait', copy, '--ping', 'PC2:PC4', '--timeout', '30');
      await ok('lab', 'down', copy);
      assert.equal(await projectNamed('vlans-copy'), undefined);
    });

    it('down --keep stops the PCs and keeps the project; down deletes it', async () => {
      const keep = await ok('lab', 'down', lab, '--keep');
      assert.match(keep.stdout, /✓ Stopped PC1, PC2, PC3, PC4\n✓ Lab vlans-trunk is stopped; its project is kept\n$/);
      assert.deepEqual((await nodesOf(pid)).filter((n) => n.node_type === 'vpcs').map((n) => n.status), ['stopped', 'stopped', 'stopped', 'stopped']);
      const down = await ok('lab', 'down', 'vlans-trunk', '--json');
      assert.deepEqual(JSON.parse(down.stdout), { lab: 'vlans-trunk', project_id: pid, stopped: [], deleted: true });
      assert.equal(await projectNamed('vlans-trunk'), undefined);
      assertFails(await run('lab', 'down', lab), 1, /^emuctl: no lab vlans-trunk on http:\/\/127\.0\.0\.1:\d+ \(no project of that name\)\n$/);
    });
  });

  describe('examples/two-computes.yml: a lab across the controller and lab-b', () => {
    const lab = example('two-computes');

    it('up, wait both ways across the computes, inspect, save, down', async () => {
      const up = await ok('lab', 'up', lab);
      assert.match(up.stdout, /\+ node PC2 \(vpcs on lab-b\)\n/);
      assert.match(up.stdout, /\+ link PC2:0\/0-SW1:0\/1 \(delay 10\)\n/);
      await ok('lab', 'wait', lab, '--ping', 'PC1:PC2', '--ping', 'PC2:PC1', '--timeout', '30');
      const json = jsonOf(await run('lab', 'inspect', lab, '--json'));
      assert.deepEqual(json.nodes.map((n: any) => [n.name, n.compute, n.ip, n.gateway]), [
        ['PC1', (await controller.api('GET', '/v2/computes/local')).body.name, '192.168.50.1/24', '192.168.50.254'],
        ['PC2', 'lab-b', '192.168.50.2/24', '192.168.50.254'],
        ['SW1', (await controller.api('GET', '/v2/computes/local')).body.name, null, null],
      ]);
      const pc2 = (await nodesOf(json.project_id)).find((n) => n.name === 'PC2');
      assert.equal((await compute.api('GET', `/v2/compute/projects/${json.project_id}/vpcs/nodes/${pc2.node_id}`)).status, 200, 'PC2 runs on lab-b');
      assert.match((await ok('lab', 'graph', lab)).stdout, /0\/1 ── PC2 0\/0 \(vpcs 192\.168\.50\.2\/24\) {2}\[delay 10\]/);
      const saved = (await ok('lab', 'save', 'two-computes')).stdout;
      assert.match(saved, /\n {2}PC2:\n {4}type: vpcs\n {4}compute: lab-b\n {4}ip: 192\.168\.50\.2\/24\n {4}gateway: 192\.168\.50\.254\n/);
      await ok('lab', 'down', lab);
    });
  });

  describe('examples/qemu-router.yml: a QEMU router between two VPCS subnets', () => {
    const lab = example('qemu-router');

    it('up, wait across the router, exec on the guest shell with its exit status, inspect, graph, save, down', async () => {
      const guest = await testGuest();
      await ok('image', 'upload', guest.kernel, '--name', 'vmlinuz');
      await ok('image', 'upload', guest.initrd, '--name', 'initrd.img');
      const up = await ok('lab', 'up', lab);
      assert.match(up.stdout, /\+ node R1 \(qemu on local\)\n/);
      const r1 = (await nodesOf((await projectNamed('qemu-router')).project_id)).find((n) => n.name === 'R1');
      assert.deepEqual([r1.status, r1.properties.adapters, r1.properties.ram, r1.properties.kernel_image, r1.properties.adapter_type], ['started', 2, 128, 'vmlinuz', 'virtio-net-pci']);
      const wait = await ok('lab', 'wait', lab, '--ping', 'PC1:PC2', '--ping', 'PC2:PC1', '--ping', 'R1:PC2', '--timeout', '180');
      assert.match(wait.stdout, /✓ R1 pings PC2 \(10\.20\.2\.10\) after [\d.]+ s\n/);
      const route = await ok('node', 'exec', 'R1', '-p', 'qemu-router', '--', 'ip', '-4', 'route');
      assert.match(route.stdout, /^10\.20\.1\.0\/24 dev eth0 .*\n10\.20\.2\.0\/24 dev eth1 .*\n$/);
      assert.doesNotMatch(route.stdout, /__emuctl|ip -4 route/);
      const status = await run('node', 'exec', 'R1', '-p', 'qemu-router', '--json', '--', '(exit', '3)');
      assert.equal(status.code, 3, status.stderr);
      assert.deepEqual(JSON.parse(status.stdout).exit_code, 3);
      const both = await run('node', 'exec', '-n', 'R1,PC1', '-p', 'qemu-router', '--', 'ping', '-c', '1', '10.20.2.10');
      assert.equal(both.code, 1, 'VPCS reads "-c" as its own option and pings nothing; the highest status wins');
      assert.match(both.stdout, /^R1: .*1 packets transmitted, 1 packets received/m);
      const json = jsonOf(await run('lab', 'inspect', lab, '--json'));
      assert.deepEqual(json.nodes.map((n: any) => [n.name, n.type, n.status]), [['PC1', 'vpcs', 'started'], ['PC2', 'vpcs', 'started'], ['R1', 'qemu', 'started']]);
      assert.match(json.nodes.find((n: any) => n.name === 'R1').console, /^127\.0\.0\.1:\d+$/);
      assert.match((await ok('lab', 'graph', lab)).stdout, /│ R1  qemu │\n└─+┘\n {2}├── 0\/0 ── PC1 0\/0 \(vpcs 10\.20\.1\.10\/24\)\n {2}└── 1\/0 ── PC2 0\/0 \(vpcs 10\.20\.2\.10\/24\) {2}\[delay 5\]\n/);
      const saved = join(dir, 'qemu-saved.yml');
      await ok('lab', 'save', 'qemu-router', '-o', saved);
      assert.match(readFileSync(saved, 'utf8'), /\n {2}R1:\n {4}type: qemu\n {4}ram: 128\n {4}adapters: 2\n {4}kernel: vmlinuz\n {4}initrd: initrd\.img\n {4}kernel_command_line: console=ttyS0 quiet panic=-1 guest\.eth0=10\.20\.1\.1\/24 guest\.eth1=10\.20\.2\.1\/24 guest\.forward=1\n {4}adapter_type: virtio-net-pci\n/);
      assert.equal((await ok('lab', 'up', saved)).stdout, '✓ No changes: lab qemu-router is up to date\n', 'the saved file describes the lab as it is');
      await ok('lab', 'down', lab);
    });
  });

  describe('a project built by hand', () => {
    it('lab save writes its file; lab up of it as a new project gives the same lab', async () => {
      await ok('project', 'create', 'by-hand', '--use');
      await ok('switch', 'create', 'SWA', '--ports', '4');
      await ok('switch', 'set-port', 'SWA', '2', '--type', 'qinq', '--vlan', '300', '--ethertype', '0x9100');
      await ok('switch', 'set-port', 'SWA', '3', '--vlan', '30');
      await ok('node', 'create', 'HUB', '--type', 'ethernet_hub');
      await ok('node', 'create', 'PCA', '--type', 'vpcs');
      await ok('link', 'create', 'PCA:0/0', 'SWA:0/0');
      await ok('link', 'create', 'SWA:0/1', 'HUB:0/0');
      await ok('link', 'filter', 'PCA:0/0-SWA:0/0', '--delay', '15', '--jitter', '3', '--loss', '2');
      const text = (await ok('lab', 'save', 'by-hand')).stdout;
      assert.match(text, /\n {2}SWA:\n {4}type: ethernet_switch\n {4}ports:\n {6}2:\n {8}type: qinq\n {8}vlan: 300\n {8}ethertype: "0x9100"\n {6}3:\n {8}vlan: 30\n {4}port_count: 4\n/);
      assert.match(text, /\n {2}- endpoints:\n {6}- PCA:0\/0\n {6}- SWA:0\/0\n {4}filters:\n {6}delay:\n {8}- 15\n {8}- 3\n {6}packet_loss: 2\n/);
      const copy = file('by-hand-copy.yml', text.replace('name: by-hand', 'name: by-hand-copy'));
      await ok('lab', 'up', copy);
      const view = async (name: string) => {
        const json = jsonOf(await run('lab', 'inspect', name, '--json'));
        const pid = json.project_id;
        const ports = (await nodesOf(pid)).filter((n) => n.node_type !== 'vpcs').map((n) => [n.name, n.properties.ports_mapping]).sort();
        return { nodes: json.nodes.map((n: any) => [n.name, n.type]), links: json.links.map((l: any) => [l.link, l.filters, l.suspended]), ports };
      };
      assert.deepEqual(await view('by-hand-copy'), await view('by-hand'));
      await ok('lab', 'down', copy);
      await ok('lab', 'down', 'by-hand');
    });
  });

  describe('a lab changed in place', () => {
    const v1 = `name: changing
nodes:
  SW1: {type: ethernet_switch}
  PC1: {type: vpcs, ip: 10.1.0.1/24}
  PC2: {type: vpcs, ip: 10.1.0.2/24}
  PC3: {type: vpcs, ip: 10.1.0.3/24}
links:
  - [PC1:0/0, SW1:0/0]
  - {endpoints: [PC2:0/0, SW1:0/1], filters: {delay: 20}}
  - [PC3:0/0, SW1:0/2]
`;
    const v2 = `name: changing
nodes:
  SW1: {type: ethernet_switch, ports: {1: {vlan: 1}, 5-6: {vlan: 30}}}
  PC1: {type: vpcs, ip: 10.1.0.1/24, dns: 10.1.0.53}
  PC2b: {type: vpcs, ip: 10.1.0.22/24}
  PC4: {type: vpcs, ip: 10.1.0.4/24}
links:
  - [PC1:0/0, SW1:0/0]
  - {endpoints: [PC2b:0/0, SW1:0/1], filters: {delay: 50, packet_loss: 5}}
  - [PC4:0/0, SW1:0/3]
captures: [PC1:0/0-SW1:0/0]
`;
    let pid: string;
    let pc2: any;

    it('a node whose address changed restarts with it; its addresses survive a restart', async () => {
      await ok('lab', 'up', file('v1.yml', v1));
      pid = (await projectNamed('changing')).project_id;
      pc2 = (await nodesOf(pid)).find((n) => n.name === 'PC2');
      await ok('project', 'use', 'changing');
      await ok('node', 'stop', 'PC1');
      await ok('node', 'start', 'PC1');
      assert.match((await ok('node', 'exec', 'PC1', '--', 'show', 'ip')).stdout, /IP\/MASK +: 10\.1\.0\.1\/24\n/);
    });

    it('the plan shows each change, the apply makes exactly those, and a second up is a no-op', async () => {
      const path = file('v2.yml', v2);
      const plan = (await ok('lab', 'up', path, '--dry-run')).stdout;
      assert.equal(plan, [
        'Plan for lab changing (3 to add, 4 to change, 2 to delete, 3 to start):',
        '  - link PC3:0/0-SW1:0/2',
        '  - node PC3',
        '  ~ node SW1 port 5 vlan 1→30, port 6 vlan 1→30',
        '  ~ node PC1 dns -→10.1.0.53 (restarts it)',
        '  ~ node PC2 → PC2b, ip 10.1.0.2/24→10.1.0.22/24 (restarts it)',
        '  + node PC4 (vpcs on local)',
        '  + capture PC1:0/0-SW1:0/0',
        '  ~ link PC2b:0/0-SW1:0/1 delay 20→50, packet_loss off→5',
        '  + link PC4:0/0-SW1:0/3',
        '  > start PC4, PC1, PC2b',
        '',
      ].join('\n'));
      const applied = await ok('lab', 'up', path);
      assert.deepEqual(applied.stdout.split('\n').filter((l) => l.startsWith('✓ ') && !l.startsWith('✓ Lab')).map((l) => `  ${l.slice(2)}`), plan.split('\n').slice(1, -1));
      const nodes = await nodesOf(pid);
      const renamed = nodes.find((n) => n.name === 'PC2b');
      assert.equal(renamed.node_id, pc2.node_id, 'renamed in place');
      assert.equal(nodes.find((n) => n.name === 'PC3'), undefined);
      assert.deepEqual(nodes.filter((n) => n.node_type === 'vpcs').map((n) => n.status), ['started', 'started', 'started']);
      const link = (await linksOf(pid)).find((l) => l.nodes.some((e: any) => e.node_id === pc2.node_id));
      assert.deepEqual(link.filters, { delay: [50, 0], packet_loss: [5] });
      assert.match((await ok('node', 'exec', 'PC2b', '--', 'show', 'ip')).stdout, /NAME +: PC2b\[1\]\nIP\/MASK +: 10\.1\.0\.22\/24\n/);
      assert.match((await ok('node', 'exec', 'PC1', '--', 'show', 'ip')).stdout, /DNS +: 10\.1\.0\.53/);
      assert.equal((await ok('lab', 'up', path)).stdout, '✓ No changes: lab changing is up to date\n');
    });

    it('node exec: output without echo or prompt, exit status of ping, -n in parallel with prefixes, --json', async () => {
      const show = await ok('node', 'exec', 'PC4', '--', 'show', 'ip');
      assert.doesNotMatch(show.stdout, /show ip|PC4> /);
      // PC4's link has no filters: PC2b's loses 5% each way, which would fail this check one run in ten.
      const good = await run('node', 'exec', 'PC1', '--', 'ping', '10.1.0.4', '-c', '2');
      assert.equal(good.code, 0, good.stderr);
      assert.match(good.stdout, /^(84 bytes from )?10\.1\.0\.4 icmp_seq=1 ttl=64 time=[\d.]+ ms\n/);
      const bad = await run('node', 'exec', 'PC1', '--', 'ping', '10.1.0.99', '-c', '1');
      assert.deepEqual([bad.code, bad.stderr], [1, '']);
      assert.match(bad.stdout, /host \(10\.1\.0\.99\) not reachable/);
      const both = await run('node', 'exec', '-n', 'PC1,PC4', '--', 'show', 'ip');
      assert.equal(both.code, 0, both.stderr);
      assert.match(both.stdout, /^PC1: NAME +: PC1\[1\]\n(PC1: .*\n)+PC4: NAME +: PC4\[1\]\n(PC4: .*\n)+$/);
      const json = jsonOf(await run('node', 'exec', 'PC4', '--json', '--', 'ping', '10.1.0.1', '-c', '1'));
      assert.deepEqual(Object.keys(json), ['node', 'command', 'output', 'exit_code', 'duration_ms']);
      assert.deepEqual([json.node, json.command, json.exit_code], ['PC4', 'ping 10.1.0.1 -c 1', 0]);
      assert.ok(json.duration_ms > 0);
      assertFails(await run('node', 'exec', 'SW1', '--', 'show'), 1, /^emuctl: node SW1 \(ethernet_switch\) has no telnet console to run commands on\n$/);
      assertFails(await run('node', 'exec', 'PC1'), 2, /missing command: give it after --/);
    });

    it('wait fails with the pair whose link is suspended, and passes again once it is resumed', async () => {
      const path = join(dir, 'v2.yml');
      await ok('lab', 'wait', path, '--ping', 'PC1:PC4', '--ping', 'PC1:PC2b', '--timeout', '30');
      await ok('link', 'suspend', 'PC2b:0/0-SW1:0/1');
      const r = await run('lab', 'wait', path, '--ping', 'PC4:PC1', '--ping', 'PC1:PC2b', '--timeout', '3');
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, /^emuctl: no ping within 3 s: PC1 → PC2b \(10\.1\.0\.22\): /);
      assert.doesNotMatch(r.stderr, /PC4 →/);
      // The file says the link is not suspended: up resumes it.
      assert.match((await ok('lab', 'up', path)).stdout, /~ link PC2b:0\/0-SW1:0\/1 resume\n/);
      await ok('lab', 'wait', path, '--ping', 'PC1:PC2b', '--timeout', '30');
      await ok('lab', 'down', path);
    });
  });

  describe('bad input', () => {
    it('malformed YAML, an unknown key, a bad endpoint: exit 2 with file:line:col, nothing sent', async () => {
      const yaml = file('bad-yaml.yml', 'name: bad\nnodes:\n  PC1: {type: vpcs\n');
      assertFails(await run('lab', 'up', yaml), 2, new RegExp(`^emuctl: ${yaml.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: invalid YAML: `));
      const key = file('bad-key.yml', 'name: bad\nnodes:\n  PC1: {type: vpcs, addr: 10.0.0.1/24}\n');
      assertFails(await run('lab', 'up', key), 2, /bad-key\.yml:3:21: unknown key "addr" in nodes\.PC1; expected one of: /);
      const end = file('bad-end.yml', 'name: bad\nnodes:\n  PC1: {type: vpcs}\nlinks:\n  - [PC1:0/0, PC9:0/0]\n');
      assertFails(await run('lab', 'up', end), 2, /bad-end\.yml:5:15: unknown node "PC9" in link end "PC9:0\/0"; nodes: PC1\n$/);
      const compute = file('bad-compute.yml', 'name: bad\nnodes:\n  PC1: {type: vpcs, compute: nowhere}\n');
      assertFails(await run('lab', 'up', compute), 2, /bad-compute\.yml:3:30: unknown compute "nowhere" for node PC1; the server has: /);
      assertFails(await run('lab', 'up', join(dir, 'missing.yml')), 2, /cannot read lab file \S+missing\.yml: no such file\n$/);
      assert.equal(await projectNamed('bad'), undefined);
    });

    it("the node file route keeps to the node's directory: 404 for a missing file, 400 for a path that leaves it", async () => {
      await ok('lab', 'up', file('files.yml', 'name: files\nnodes:\n  PC1: {type: vpcs, ip: 10.3.0.1/24}\n'));
      const pid = (await projectNamed('files')).project_id;
      const pc1 = (await nodesOf(pid))[0];
      const script = await controller.api('GET', `/v2/projects/${pid}/nodes/${pc1.node_id}/files/startup.vpc`);
      assert.deepEqual([script.status, script.headers.get('content-type'), script.text], [200, 'application/octet-stream', 'set pcname PC1\nip 10.3.0.1/24\n']);
      assert.equal((await controller.api('GET', `/v2/projects/${pid}/nodes/${pc1.node_id}/files/nothing.txt`)).status, 404);
      for (const path of ['..%2F..%2Fproject.gns3', 'a%2F..%2F..%2Fx']) {
        const r = await controller.api('GET', `/v2/projects/${pid}/nodes/${pc1.node_id}/files/${path}`);
        assert.equal(r.status, 400, `${path}: ${r.text}`);
      }
      const escape = await controller.api('POST', `/v2/compute/projects/${pid}/files/..%2F..%2Fescape`, 'x');
      assert.equal(escape.status, 400, escape.text);
      await ok('lab', 'down', 'files');
    });

    it('a server error: exit 1 naming the step that failed and how much was applied', async () => {
      const path = file('refused.yml', 'name: refused\nnodes:\n  SW1: {type: ethernet_switch}\n  PC1: {type: vpcs, properties: {no_such_property: 1}}\nlinks:\n  - [PC1:0/0, SW1:0/0]\n');
      const r = await run('lab', 'up', path);
      assert.equal(r.code, 1);
      assert.match(r.stdout, /✓ \+ project refused\n✓ \+ node SW1 \(ethernet_switch on local\)\n/);
      assert.match(r.stderr, /^emuctl: step "\+ node PC1 \(vpcs on local\)" failed: .*no_such_property.*; 2 of 5 steps were applied before it, 2 more were not \(the plan says which; run lab up again to finish\)\n$/);
      await ok('lab', 'down', path);
    });
  });
});
