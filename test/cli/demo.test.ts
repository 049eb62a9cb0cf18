// emuctl demo: argv → options, then real runs against daemons with and without VPCS.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { demoProjectName } from '../../src/client/demo-lab.js';
import { demoCommand } from '../../src/commands/demo/index.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { icmpPackets } from '../helpers/tshark.js';
import { cliEnv, parseWithSpy, removeTempHome, runInProcess, tempHome } from './helpers/cli.js';

/** This suite's share of the capture port ranges. */
const PORTS = { EMUCTL_UDP_PORT_RANGE: '32400-32499', EMUCTL_CONSOLE_PORT_RANGE: '26130-26159' };

describe('demo: argv → options', () => {
  it('--project NAME, or none for the dated default', async () => {
    assert.deepEqual((await parseWithSpy(null, demoCommand, ['demo', '--project', 'mine'])).opts, { project: 'mine' });
    assert.deepEqual((await parseWithSpy(null, demoCommand, ['demo', '-p', 'x', '--json'])).opts, { project: 'x' });
    assert.deepEqual((await parseWithSpy(null, demoCommand, ['demo'])).opts, { project: undefined });
  });

  it('the default project name is demo-yyyymmdd-hhmmss in local time', () => {
    assert.equal(demoProjectName(new Date(2026, 0, 2, 3, 4, 5)), 'demo-20260102-030405');
    assert.match(demoProjectName(), /^demo-\d{8}-\d{6}$/);
  });
});

describe('demo against a daemon with VPCS', () => {
  let d: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    d = await startTestDaemon({ env: PORTS });
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: d.url });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
    removeTempHome(home);
  });

  it('builds the lab, pings across it with a capture running; --json summary; tshark finds the pings in the pcap', async () => {
    const r = await runInProcess(['demo', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.match(s.project.name, /^demo-\d{8}-\d{6}$/);
    assert.deepEqual(s.nodes.map((n: any) => [n.name, n.node_type, n.ip]), [['SW1', 'ethernet_switch', null], ['PC1', 'vpcs', '10.0.0.1/24'], ['PC2', 'vpcs', '10.0.0.2/24']]);
    assert.deepEqual(s.links.map((l: any) => l.link), ['PC1:0/0-SW1:0/0', 'PC2:0/0-SW1:0/1']);
    assert.deepEqual([s.ping.from, s.ping.to, s.ping.sent, s.ping.received, s.ok], ['PC1', '10.0.0.2', 3, 3, true]);
    assert.equal(s.capture.link, 'PC1:0/0-SW1:0/0');
    assert.ok(s.capture.frames >= 6, `frames: ${s.capture.frames}`);
    const packets = await icmpPackets(s.capture.capture_file_path);
    assert.equal(packets.filter((p) => p.src === '10.0.0.1' && p.dst === '10.0.0.2' && p.type === 8).length, 3);
    assert.equal(packets.filter((p) => p.src === '10.0.0.2' && p.dst === '10.0.0.1' && p.type === 0).length, 3);
    const nodes = (await d.api('GET', `/v2/projects/${s.project.project_id}/nodes`)).body;
    assert.deepEqual(nodes.filter((n: any) => n.node_type === 'vpcs').map((n: any) => n.status), ['started', 'started'], 'the lab keeps running');
  });

  it('on a terminal: a spinner per step, a ✓ line per step, the frames, the pcap path and a tshark hint', async () => {
    const r = await runInProcess(['demo', '--project', 'demo-tty'], { ...env, NO_COLOR: '1' }, { isTTY: true });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.out.spinners, ['Creating project demo-tty', 'Creating switch SW1 and VPCS PC1, PC2', 'Linking PC1 and PC2 to SW1 ports 0 and 1',
      'Starting PC1 and PC2', 'Setting PC1 10.0.0.1/24, PC2 10.0.0.2/24 through the consoles', 'Starting a capture on PC1:0/0-SW1:0/0',
      'Pinging PC2 (10.0.0.2) from PC1, 3 times', 'Stopping the capture']);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /^✓ Created project demo-tty \([0-9a-f-]{36}\)$/);
    assert.equal(lines[2], '✓ Linked PC1:0/0-SW1:0/0 and PC2:0/0-SW1:0/1');
    assert.match(lines[3], /^✓ Started PC1 \(console 127\.0\.0\.1:\d+\) and PC2 \(console 127\.0\.0\.1:\d+\)$/);
    assert.match(r.stdout, /^✓ Pinged: 3\/3 replies, rtt min\/avg\/max [\d.]+\/[\d.]+\/[\d.]+ ms$/m);
    assert.match(r.stdout, /^ {2}\d\d:\d\d:\d\d\.\d{6} 10\.0\.0\.1 > 10\.0\.0\.2 ICMP echo request, id \d+, seq 1, length 64$/m);
    assert.match(r.stdout, /^ {2}\d\d:\d\d:\d\d\.\d{6} 10\.0\.0\.2 > 10\.0\.0\.1 ICMP echo reply, id \d+, seq 3, length 64$/m);
    const path = /^pcap: (\/\S+\.pcap)$/m.exec(r.stdout)?.[1];
    assert.ok(path, r.stdout);
    assert.ok(r.stdout.includes(`  read it with: tshark -r ${path}\n`));
    assert.match(r.stdout, /Remove it with: emuctl project delete demo-tty\n$/);
  });

  it('plain lines when not on a terminal; an existing project name fails, exit 1', async () => {
    const again = await runInProcess(['demo', '--project', 'demo-tty'], env);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    assert.match(again.stderr, /^emuctl: .*demo-tty.*already exists/m);
    assert.doesNotMatch(again.stderr, /the lab built so far/);
  });
});

describe('demo against a daemon without VPCS', () => {
  let d: TestDaemon;
  let home: string;
  before(async () => {
    d = await startTestDaemon({ env: { ...PORTS, EMUCTL_VPCS_BINARY: '/nonexistent/vpcs' } });
    home = tempHome();
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
    removeTempHome(home);
  });

  it('exit 1 with the server\'s message on how to install VPCS; the half-built project is removed', async () => {
    const r = await runInProcess(['demo', '--project', 'novpcs'], cliEnv(home, { EMUCTL_URL: d.url }));
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^✓ Created project novpcs/);
    assert.match(r.stderr, /^emuctl: emuctl demo needs VPCS on the server: VPCS executable not found at \/nonexistent\/vpcs: install it with `sudo apt-get install vpcs`.*\(removed the demo project novpcs\)\n$/);
    assert.deepEqual((await d.api('GET', '/v2/projects')).body.map((p: any) => p.name), []);
  });
});
