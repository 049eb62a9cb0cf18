// `emuctl switch …` run against real daemons: stdout, stderr and exit code of every verb.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { ethernetFrame, udpEndpoint, type UdpEndpoint } from '../helpers/udp.js';
import { cliEnv, removeTempHome, runInProcess, tempHome, assertFails, jsonOf, startCliDaemon, stopCliDaemon } from './helpers/cli.js';
import { UUID_PATTERN } from '../../src/util/uuid.js';

const UUID = UUID_PATTERN;

/** A UDP port that was free a moment ago. */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/**
 * Asserts a failed run: the exit code, nothing on stdout, and one line on stderr matching
 * `message` (commander's usage errors, exit 2, add a second line: "(add --help for usage)").
 */

describe('switch commands against the daemon', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let projectId: string;
  const run = (...argv: string[]) => runInProcess(argv, env);
  const nodeOf = async (nodeId: string) => (await daemon.api('GET', `/v2/projects/${projectId}/nodes/${nodeId}`)).body;
  const switchId = async (name: string): Promise<string> =>
    (await daemon.api('GET', `/v2/projects/${projectId}/nodes`)).body.find((n: { name: string }) => n.name === name).node_id;

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon());
  });
  after(() => stopCliDaemon({ daemon, home }));

  it('without a project and no default project: usage error, exit 2', async () => {
    assertFails(await run('switch', 'list'), 2, /^emuctl: no project given: pass --project P/);
    assertFails(await run('switch', 'create', 'SW1'), 2, /no project given/);
  });

  it('switch list: says so when there is none', async () => {
    projectId = jsonOf(await run('project', 'create', 'lab', '--use', '--json')).project_id;
    const r = await run('switch', 'list');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'no switches in project lab\n', '']);
    assert.deepEqual(jsonOf(await run('switch', 'list', '--json')), []);
  });

  it('switch create: 8 access ports in VLAN 1 by default; --ports N', async () => {
    const r = await run('switch', 'create', 'SW1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^✓ Created switch SW1 \([0-9a-f-]{36}\) with 8 ports in project lab\n$/);
    const sw2 = jsonOf(await run('switch', 'create', 'SW2', '--ports', '3', '--project', 'lab', '--json'));
    assert.equal(sw2.node_type, 'ethernet_switch');
    assert.equal(sw2.compute_id, 'local');
    assert.deepEqual(sw2.properties.ports_mapping, [0, 1, 2].map((i) => ({ name: `Ethernet${i}`, port_number: i, type: 'access', vlan: 1, ethertype: '' })));
    const sw1 = await nodeOf(await switchId('SW1'));
    assert.deepEqual(sw1.properties.ports_mapping.map((p: { name: string; type: string; vlan: number }) => `${p.name}/${p.type}/${p.vlan}`),
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `Ethernet${i}/access/1`));
  });

  it('switch create: a taken name gets the next free one, as in GNS3, with a warning; a bad --ports is a usage error', async () => {
    const taken = await run('switch', 'create', 'SW1', '--json');
    assert.equal(taken.code, 0, taken.stderr);
    const renamed = JSON.parse(taken.stdout);
    assert.match(taken.stderr, new RegExp(`^warning: 'SW1' is taken in this project; the server named the node ${renamed.name}\n$`));
    assert.notEqual(renamed.name, 'SW1');
    assert.equal((await daemon.api('DELETE', `/v2/projects/${projectId}/nodes/${renamed.node_id}`)).status, 204);
    assertFails(await run('switch', 'create', 'SW9', '--ports', '0'), 2, /--ports.*1-1024/);
    assertFails(await run('switch', 'create', 'SW9', '--project', 'nope'), 1, /no project matches "nope"/);
  });

  it('switch list: a table sorted by name; --json the switches only, as the server sent them', async () => {
    await daemon.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'HUB', node_type: 'ethernet_hub' });
    const r = await run('switch', 'list');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^NAME {2}STATUS {3}PORTS {2}COMPUTE {2}ID$/);
    assert.match(lines[1], /^SW1 {3}started {2}8 {6}local {4}[0-9a-f-]{36}$/);
    assert.match(lines[2], /^SW2 {3}started {2}3 {6}local {4}[0-9a-f-]{36}$/);
    assert.equal(lines.length, 3, 'the hub is not a switch');
    const nodes = (await daemon.api('GET', `/v2/projects/${projectId}/nodes`)).body;
    assert.deepEqual(jsonOf(await run('switch', 'list', '--json')), nodes.filter((n: { node_type: string }) => n.node_type === 'ethernet_switch'));
  });

  it('switch show: fields, then one row per port; --json the node plus its stats', async () => {
    const r = await run('switch', 'show', 'SW2');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const id = await switchId('SW2');
    assert.equal(r.stdout, [
      'name:     SW2',
      `id:       ${id}`,
      `project:  ${projectId}`,
      'compute:  local',
      'status:   started',
      '',
      'PORT  NAME       TYPE    VLAN  NIO  FRAMES IN  BYTES IN  FRAMES OUT  BYTES OUT  DROPS',
      '0     Ethernet0  access  1     -    0          0         0           0          0',
      '1     Ethernet1  access  1     -    0          0         0           0          0',
      '2     Ethernet2  access  1     -    0          0         0           0          0',
      ''].join('\n'));
    const json = jsonOf(await run('switch', 'show', id.slice(0, 8), '--json'));
    assert.equal(json.node_id, id);
    assert.deepEqual(json.properties, (await nodeOf(id)).properties);
    assert.deepEqual(json.stats.map((s: { port_number: number; nio: unknown }) => [s.port_number, s.nio]), [[0, null], [1, null], [2, null]]);
  });

  it('switch show: an unknown switch lists the known ones, exit 1', async () => {
    assertFails(await run('switch', 'show', 'SW3'), 1, /^emuctl: no switch matches "SW3"; known: SW1 \(.*\), SW2 \(/);
    assertFails(await run('switch', 'show', 'HUB'), 1, /no switch matches "HUB"/);
  });

  it('switch set-port: changes one port, by number or name; the rest of ports_mapping is kept', async () => {
    const id = await switchId('SW1');
    const r = await run('switch', 'set-port', 'SW1', '2', '--type', 'qinq', '--vlan', '100', '--ethertype', '0x88a8');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '✓ Port 2 (Ethernet2) of SW1: qinq, outer VLAN 100, ethertype 0x88A8\n');
    const trunk = jsonOf(await run('switch', 'set-port', 'SW1', 'Ethernet3', '--type', 'dot1q', '--json'));
    assert.deepEqual(trunk.properties.ports_mapping[3], { name: 'Ethernet3', port_number: 3, type: 'dot1q', vlan: 1, ethertype: '' });
    assert.match((await run('switch', 'set-port', 'SW1', '4', '--vlan', '20')).stdout, /^✓ Port 4 \(Ethernet4\) of SW1: access, VLAN 20\n$/);
    // A qinq port keeps its ethertype when only its VLAN changes.
    await run('switch', 'set-port', 'SW1', '2', '--vlan', '200');
    const ports = (await nodeOf(id)).properties.ports_mapping;
    assert.deepEqual(ports[2], { name: 'Ethernet2', port_number: 2, type: 'qinq', vlan: 200, ethertype: '0x88A8' });
    assert.deepEqual(ports.filter((_: unknown, i: number) => ![2, 3, 4].includes(i)).map((p: { type: string; vlan: number }) => `${p.type}/${p.vlan}`),
      Array(5).fill('access/1'));
    const show = await run('switch', 'show', 'SW1');
    assert.match(show.stdout, /^2 +Ethernet2 +qinq 0x88A8 +200 +- +0/m);
    assert.match(show.stdout, /^3 +Ethernet3 +dot1q +1 +-/m);
  });

  it('switch set-port: bad values are usage errors (exit 2) and change nothing', async () => {
    const id = await switchId('SW1');
    const before = (await nodeOf(id)).properties.ports_mapping;
    assertFails(await run('switch', 'set-port', 'SW1', '1', '--vlan', '4095'), 2, /--vlan.*1-4094/);
    assertFails(await run('switch', 'set-port', 'SW1', '1', '--vlan', '0'), 2, /1-4094/);
    assertFails(await run('switch', 'set-port', 'SW1', '1', '--type', 'trunk'), 2, /access, dot1q, qinq/);
    assertFails(await run('switch', 'set-port', 'SW1', '1', '--type', 'qinq', '--ethertype', '0x1234'), 2, /0x8100, 0x88A8, 0x9100, 0x9200/);
    assertFails(await run('switch', 'set-port', 'SW1', '1', '--type', 'access', '--ethertype', '0x88A8'), 2, /--ethertype applies only to qinq ports/);
    assertFails(await run('switch', 'set-port', 'SW1', '1', '--ethertype', '0x9100'), 2, /--ethertype applies only to qinq ports.*add --type qinq/);
    assertFails(await run('switch', 'set-port', 'SW1', '1'), 2, /nothing to change/);
    assertFails(await run('switch', 'set-port', 'SW1', '9', '--vlan', '5'), 1, /switch SW1 has no port "9"; its ports: 0 \(Ethernet0\), 1 \(Ethernet1\)/);
    assert.deepEqual((await nodeOf(id)).properties.ports_mapping, before);
  });

  describe('NIOs, counters and the MAC table', () => {
    let far0: UdpEndpoint;
    let far1: UdpEndpoint;
    let lport0: number;
    let lport1: number;
    before(async () => {
      far0 = await udpEndpoint();
      far1 = await udpEndpoint();
      lport0 = await freeUdpPort();
      lport1 = await freeUdpPort();
    });
    after(async () => {
      await far0.close();
      await far1.close();
    });

    it('switch nio add: by name, prints the NIO; --json gives it as the compute does', async () => {
      const r = await run('switch', 'nio', 'add', 'SW2', '0', '--lport', String(lport0), '--rhost', '127.0.0.1', '--rport', String(far0.port));
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `✓ Port 0/0 of switch SW2: nio_udp ${lport0}->127.0.0.1:${far0.port}\n`);
      const nio = jsonOf(await run('switch', 'nio', 'add', 'SW2', '1', '--lport', String(lport1), '--rhost', '127.0.0.1', '--rport', String(far1.port), '--adapter', '0', '--json'));
      assert.deepEqual(nio, { type: 'nio_udp', lport: lport1, rhost: '127.0.0.1', rport: far1.port, filters: {}, suspend: false });
    });

    it('frames through the tunnels show in switch show and switch mac-table', async () => {
      const frame = ethernetFrame('ff:ff:ff:ff:ff:ff', '02:00:00:00:00:01');
      await far0.send(frame, lport0);
      assert.deepEqual(await far1.next(), frame, 'flooded to port 1');
      await far1.send(ethernetFrame('02:00:00:00:00:01', '02:00:00:00:00:02'), lport1);
      await far0.next();

      const show = await run('switch', 'show', 'SW2');
      const row = (port: number) => show.stdout.split('\n').find((line) => line.startsWith(`${port} `))!.split(/ {2,}/);
      const bytes = String(frame.length);
      assert.deepEqual(row(0), ['0', 'Ethernet0', 'access', '1', `${lport0}->127.0.0.1:${far0.port}`, '1', bytes, '1', bytes, '0']);
      assert.deepEqual(row(1).slice(4), [`${lport1}->127.0.0.1:${far1.port}`, '1', bytes, '1', bytes, '0']);
      assert.deepEqual(row(2).slice(4), ['-', '0', '0', '0', '0', '0']);

      const macs = await run('switch', 'mac-table', 'SW2');
      assert.equal(macs.code, 0, macs.stderr);
      assert.deepEqual(macs.stdout.trimEnd().split('\n').map((line) => line.split(/ {2,}/)), [
        ['MAC', 'VLAN', 'PORT', 'NAME', 'AGE'],
        ['02:00:00:00:00:01', '1', '0', 'Ethernet0', macs.stdout.match(/Ethernet0 +(\d+s)/)![1]],
        ['02:00:00:00:00:02', '1', '1', 'Ethernet1', macs.stdout.match(/Ethernet1 +(\d+s)/)![1]],
      ]);
      assert.match(macs.stdout, /^MAC {16}VLAN/);
      const json = jsonOf(await run('switch', 'mac-table', 'SW2', '--json'));
      assert.deepEqual(json.map((e: { mac: string; vlan: number; port: number }) => [e.mac, e.vlan, e.port]), [['02:00:00:00:00:01', 1, 0], ['02:00:00:00:00:02', 1, 1]]);
      assert.equal((await run('switch', 'mac-table', 'SW1')).stdout, 'no MAC addresses learned by SW1\n');
    });

    it('switch nio add: the compute refusing is exit 1 with its message on one line', async () => {
      const spare = await freeUdpPort();
      const args = (port: string, lport = spare) => ['switch', 'nio', 'add', 'SW2', port, '--lport', String(lport), '--rhost', '127.0.0.1', '--rport', '9'];
      assertFails(await run(...args('0')), 1, /^emuctl: Port 0 of SW2 already has a NIO\n$/);
      assertFails(await run(...args('7')), 1, /^emuctl: Port 7 doesn't exist on switch SW2\n$/);
      assertFails(await run(...args('2'), '--adapter', '1'), 1, /^emuctl: Adapter 1 doesn't exist on switch SW2/);
      assertFails(await run(...args('2', lport0)), 1, new RegExp(`^emuctl: UDP port ${lport0} .*cannot be bound`));
      const busy: Socket = createSocket('udp4');
      await new Promise<void>((resolve) => busy.bind(spare, '127.0.0.1', resolve));
      try {
        assertFails(await run(...args('2')), 1, new RegExp(`UDP port ${spare} .*cannot be bound`));
      } finally {
        busy.close();
      }
      assertFails(await run('switch', 'nio', 'add', 'SW2', '2', '--lport', String(spare), '--rhost', '', '--rport', '9'), 1, /^emuctl: .*rhost/);
    });

    it('switch nio add: missing or bad options are usage errors, exit 2', async () => {
      assertFails(await run('switch', 'nio', 'add', 'SW2', '2', '--rhost', '127.0.0.1', '--rport', '9'), 2, /required option '--lport <port>'/);
      assertFails(await run('switch', 'nio', 'add', 'SW2', '2', '--lport', '70000', '--rhost', 'h', '--rport', '9'), 2, /1-65535/);
      assertFails(await run('switch', 'nio', 'add', 'SW2', 'e2', '--lport', '7000', '--rhost', 'h', '--rport', '9'), 2, /port number/);
    });

    it('switch nio remove: frees the port; a port without a NIO is exit 1', async () => {
      const r = await run('switch', 'nio', 'remove', 'SW2', '0');
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '✓ Removed the NIO of port 0/0 of switch SW2\n', '']);
      assertFails(await run('switch', 'nio', 'rm', 'SW2', '0'), 1, /^emuctl: Port 0 of SW2 has no NIO\n$/);
      const json = jsonOf(await run('switch', 'nio', 'remove', 'SW2', '1', '--json'));
      assert.deepEqual(json, { removed: true, project_id: projectId, node_id: await switchId('SW2'), adapter_number: 0, port_number: 1 });
      // The local port is free again: bind it here.
      const socket = createSocket('udp4');
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(lport0, '127.0.0.1', resolve);
      });
      socket.close();
    });
  });

  it('switch nio add/remove: full UUIDs are used as given, with no controller lookup (a switch made on the compute API)', async () => {
    const pid = randomUUID();
    assert.equal((await daemon.api('POST', '/v2/compute/projects', { project_id: pid, name: 'raw' })).status, 201);
    const made = await daemon.api('POST', `/v2/compute/projects/${pid}/ethernet_switch/nodes`, { name: 'RAW' });
    assert.equal(made.status, 201, made.text);
    const nid = made.body.node_id;
    assert.equal((await daemon.api('GET', `/v2/projects/${pid}`)).status, 404, 'the controller does not know this project');
    const far = await udpEndpoint();
    const lport = await freeUdpPort();
    try {
      const r = await run('switch', 'nio', 'add', nid, '0', '--lport', String(lport), '--rhost', '127.0.0.1', '--rport', String(far.port), '--project', pid);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `✓ Port 0/0 of switch ${nid}: nio_udp ${lport}->127.0.0.1:${far.port}\n`);
      const stats = (await daemon.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${nid}/stats`)).body;
      assert.deepEqual(stats[0].nio, { type: 'nio_udp', lport, rhost: '127.0.0.1', rport: far.port, filters: {}, suspend: false });
      // Unknown UUIDs: the compute's 404, as it words it.
      assertFails(await run('switch', 'nio', 'add', randomUUID(), '0', '--lport', '7000', '--rhost', 'h', '--rport', '9', '--project', pid), 1, /^emuctl: .*(node|switch).*\n$/i);
      assertFails(await run('switch', 'nio', 'remove', nid, '0', '--project', randomUUID()), 1, /^emuctl: .*project.*\n$/i);
      const removed = await run('switch', 'nio', 'remove', nid, '0', '--project', pid);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal((await daemon.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${nid}/stats`)).body[0].nio, null);
    } finally {
      await far.close();
    }
  });

  it('switch delete: removes it; then it is unknown', async () => {
    const id = await switchId('SW2');
    const r = await run('switch', 'delete', 'SW2');
    assert.deepEqual([r.code, r.stderr], [0, '']);
    assert.equal(r.stdout, `✓ Deleted switch SW2 (${id})\n`);
    assert.equal((await daemon.api('GET', `/v2/projects/${projectId}/nodes/${id}`)).status, 404);
    assertFails(await run('switch', 'rm', 'SW2'), 1, /no switch matches "SW2"/);
    const sw1 = await switchId('SW1');
    assert.deepEqual(jsonOf(await run('switch', 'delete', 'SW1', '--json')), { deleted: true, node_id: sw1, name: 'SW1' });
    assert.equal((await run('switch', 'list')).stdout, 'no switches in project lab\n');
  });
});

describe('switch commands with a switch on a remote compute', () => {
  let controller: TestDaemon;
  let compute: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let projectId: string;
  let node: { node_id: string };
  const run = (...argv: string[]) => runInProcess(argv, env);

  before(async () => {
    [controller, compute] = await Promise.all([startTestDaemon(), startTestDaemon({ flags: { role: 'compute' } })]);
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: controller.url });
    const added = await controller.api('POST', '/v2/computes', { compute_id: 'remote1', name: 'remote1', protocol: 'http', host: '127.0.0.1', port: compute.port });
    assert.equal(added.status, 201, added.text);
    projectId = (await controller.api('POST', '/v2/projects', { name: 'wan' })).body.project_id;
    const made = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'RSW', node_type: 'ethernet_switch', compute_id: 'remote1' });
    assert.equal(made.status, 201, made.text);
    node = made.body;
  });
  after(async () => {
    await Promise.all([controller.stop(), compute.stop()]);
    removeHome(controller.home);
    removeHome(compute.home);
    removeTempHome(home);
  });

  it('switch show and mac-table reach the switch through the forward route', async () => {
    const show = await run('switch', 'show', 'RSW', '-p', 'wan');
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^compute: +remote1$/m);
    assert.match(show.stdout, /^7 +Ethernet7 +access +1 +- +0 +0 +0 +0 +0$/m);
    assert.equal(jsonOf(await run('switch', 'show', 'RSW', '-p', 'wan', '--json')).stats.length, 8);
    assert.equal((await run('switch', 'mac-table', 'RSW', '-p', 'wan')).stdout, 'no MAC addresses learned by RSW\n');
  });

  it('switch nio add by name: says to call that compute directly, exit 1', async () => {
    const r = await run('switch', 'nio', 'add', 'RSW', '0', '--lport', '7000', '--rhost', '127.0.0.1', '--rport', '9', '-p', 'wan');
    assertFails(r, 1, new RegExp(`^emuctl: switch RSW runs on compute remote1 \\(${compute.url}\\), not on this server's compute; `
      + `run: emuctl --url ${compute.url} switch nio add ${node.node_id} PORT \\.\\.\\. --project ${projectId}\\n$`));
  });

  it('switch nio add/remove with UUIDs and --url: straight to the compute-only daemon', async () => {
    const lport = await freeUdpPort();
    const add = await run('--url', compute.url, 'switch', 'nio', 'add', node.node_id, '3', '--lport', String(lport), '--rhost', '127.0.0.1', '--rport', '9', '--project', projectId);
    assert.equal(add.code, 0, add.stderr);
    const show = await run('switch', 'show', 'RSW', '-p', 'wan');
    assert.match(show.stdout, new RegExp(`^3 +Ethernet3 +access +1 +${lport}->127\\.0\\.0\\.1:9 `, 'm'));
    const remove = await run('switch', 'nio', 'remove', node.node_id, '3', '--project', projectId, '--url', compute.url);
    assert.equal(remove.code, 0, remove.stderr);
    assert.match((await run('switch', 'show', 'RSW', '-p', 'wan')).stdout, /^3 +Ethernet3 +access +1 +- /m);
    // A name cannot be resolved there: a compute-only daemon has no controller routes.
    const byName = await run('--url', compute.url, 'switch', 'nio', 'add', 'RSW', '3', '--lport', String(lport), '--rhost', '127.0.0.1', '--rport', '9', '--project', projectId);
    assert.equal(byName.code, 1);
  });
});
