// VPCS 0.5b2 binds more UDP ports than the one it is given (measured: its -s port and that port + 9,
// on 0.0.0.0). The daemon must hold every one of them, so VPCS started one by one never collide.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { listProcesses, readCmdline } from '../../../src/util/proc-info.js';
import { socketInodesOf } from '../../../src/daemon/compute/process/proc-sockets.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { createProject } from '../../helpers/lab.js';
import { eventually, PidJanitor } from './vpcs-helpers.js';

/** The local ports of the UDP sockets the processes hold (from /proc/net/udp[6] and their fds). */
function udpPortsHeldBy(pids: number[]): number[] {
  const inodes = new Set(pids.flatMap((pid) => [...socketInodesOf(pid)]));
  const ports = new Set<number>();
  for (const table of ['/proc/net/udp', '/proc/net/udp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length >= 10 && inodes.has(cols[9])) ports.add(parseInt(cols[1].split(':')[1], 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** The VPCS processes (leader and forked worker, which share its command line) serving a console port. */
function vpcsPids(consolePort: number): number[] {
  return listProcesses()
    .filter((p) => {
      const argv = readCmdline(p.pid) ?? [];
      return argv[0]?.endsWith('vpcs') && argv[argv.indexOf('-p') + 1] === String(consolePort);
    })
    .map((p) => p.pid);
}

describe('VPCS UDP ports', () => {
  const janitor = new PidJanitor();
  let d: TestDaemon;
  let pid: string;
  const nodes: { node_id: string; console: number; name: string }[] = [];

  before(async () => {
    d = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '30560-30599', EMUCTL_CONSOLE_PORT_RANGE: '26204-26219' } });
    pid = await createProject(d, 'udp-ports');
  });
  after(async () => {
    await d.stop();
    janitor.killAll();
    removeHome(d.home);
  });

  it('8 VPCS started one by one all start; every UDP port each one binds is held by the daemon', { timeout: 120_000 }, async () => {
    for (let i = 1; i <= 8; i++) {
      const created = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: `PC${i}`, node_type: 'vpcs' });
      assert.equal(created.status, 201, created.text);
      nodes.push(created.body);
    }
    for (const node of nodes) {
      const started = await d.api('POST', `/v2/projects/${pid}/nodes/${node.node_id}/start`, {});
      assert.equal(started.status, 200, `${node.name}: ${started.text}`);
      for (const p of vpcsPids(node.console)) janitor.track(p);
    }
    const ports = await d.api('GET', '/v2/compute/network/ports');
    assert.deepEqual(ports.body.console_ports, nodes.map((n) => n.console).sort((a, b) => a - b), 'console ports in use are reported');
    const held = new Set<number>(ports.body.udp_ports);
    for (const node of nodes) {
      // VPCS binds its second port from a thread of its worker: wait for it rather than for a fixed time.
      assert.ok(await eventually(() => udpPortsHeldBy(vpcsPids(node.console)).length >= 2, 10_000), `${node.name} binds two UDP ports: ${udpPortsHeldBy(vpcsPids(node.console))}`);
      const bound = udpPortsHeldBy(vpcsPids(node.console));
      assert.equal(bound[1] - bound[0], 9, `${node.name} binds its port and that port + 9: ${bound}`);
      for (const port of bound) assert.ok(held.has(port), `${node.name} binds UDP ${port}, which the daemon holds (${[...held]})`);
    }
  });

  it('deleting the nodes gives every port back', async () => {
    for (const node of nodes) assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${node.node_id}`)).status, 204);
    const ports = await d.api('GET', '/v2/compute/network/ports');
    assert.deepEqual([ports.body.console_ports, ports.body.udp_ports], [[], []]);
  });
});
