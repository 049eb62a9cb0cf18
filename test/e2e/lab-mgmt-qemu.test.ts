// QEMU nodes on a lab's management network (issue 29): the small test guest (TCG) gets its
// management address by DHCP from the network's dnsmasq, exactly the one the controller assigned,
// on a NIC placed after its data adapters (which keep their numbers and their links); the host
// pings it; the inventory and inspect list it; a node delete, a daemon kill -9 and the next start,
// and lab down leave no TAP, dnsmasq, bridge, rule or qemu process of the test's ids.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { macPlus } from '../../src/util/mac-address.js';
import { cliEnv, runInProcess } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { firewallRules, linksStartingWith } from '../helpers/host-network.js';
import { GuestShell, guestCmdline, qemuProcessesOf, testGuest } from '../helpers/qemu-guest.js';

const run = promisify(execFile);
const ENV = { EMUCTL_MGMT_RANGE: '198.19.64.0/18', EMUCTL_UDP_PORT_RANGE: '21100-21149', EMUCTL_CONSOLE_PORT_RANGE: '21150-21199', EMUCTL_QEMU_ACCEL: 'tcg' };

/** The 8 hex digits of an id that emuctl's names for it carry. */
const short = (id: string) => id.replace(/-/g, '').slice(0, 8);

/** What the management network added to the host for the given ids: interfaces, firewall lines, dnsmasq and qemu processes. */
async function hostState(ids: string[]): Promise<{ links: string[]; rules: string[]; dnsmasq: string[]; qemu: number[] }> {
  const mine = (line: string) => ids.some((id) => line.includes(short(id)));
  const rules = (await firewallRules()).split('\n').filter((l) => /EMUCTL-MGMT|emuctl management/.test(l) && mine(l));
  const { stdout } = await run('ps', ['-eo', 'args']);
  return {
    links: linksStartingWith('emum', 'emuv', 'emuq').filter(mine),
    rules,
    dnsmasq: stdout.split('\n').filter((l) => /^\S*dnsmasq /.test(l) && mine(l)),
    qemu: ids.flatMap((id) => qemuProcessesOf(id)),
  };
}
const NOTHING = { links: [], rules: [], dnsmasq: [], qemu: [] };

/** A DHCP client run on the guest's shell: busybox udhcpc with a script that sets the lease's address and notes its router. */
const DHCP_SCRIPT = "printf '%s\\n' '#!/bin/sh' '[ \"$1\" = bound ] && ifconfig \"$interface\" \"$ip\" netmask \"$subnet\" && echo \"router=$router\" > /tmp/lease' 'exit 0' > /tmp/dhcp.sh && chmod +x /tmp/dhcp.sh";

async function pingable(address: string, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await run('ping', ['-c', '1', '-W', '1', '-n', address]).then(() => true, () => false))) {
    if (Date.now() > end) throw new Error(`the host never reached ${address}`);
  }
}

describe('QEMU nodes on a management network', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-mgmt-qemu-'));
  const home = join(tmp, 'home');
  // In this process (no child's time limit) and a long request timeout: the machine may be loaded.
  const env = cliEnv(join(tmp, 'cli'), { EMUCTL_TIMEOUT: '300' });
  const shells: GuestShell[] = [];
  let d: TestDaemon;

  before(async () => {
    const guest = await testGuest();
    const images = join(home, 'images', 'QEMU');
    mkdirSync(images, { recursive: true });
    copyFileSync(guest.kernel, join(images, 'vmlinuz'));
    copyFileSync(guest.initrd, join(images, 'initrd.img'));
    d = await startTestDaemon({ home, env: ENV });
  });
  after(async () => {
    for (const s of shells) s.close();
    await d?.stop();
    removeHome(tmp);
  });

  it('gets the assigned address by DHCP on a NIC after its data adapters; nothing is left after a delete, a kill -9 and lab down', async () => {
    const file = join(tmp, 'lab.yml');
    const qemu = (eth0: string) => `{type: qemu, ram: 128, adapters: 2, adapter_type: virtio-net-pci, kernel: vmlinuz, initrd: initrd.img, kernel_command_line: "${guestCmdline([eth0])}"}`;
    writeFileSync(file, `name: mgmt-qemu\nmgmt: {}\nnodes:\n  R1: ${qemu('198.18.77.1/24')}\n  R2: ${qemu('198.18.78.1/24')}\n  PC1: {type: vpcs, ip: 198.18.77.10/24, gateway: 198.18.77.1}\nlinks:\n  - [PC1:0/0, R1:0/0]\n`);
    const cli = async (...argv: string[]) => {
      const r = await runInProcess(['--url', d.url, ...argv], env);
      assert.equal(r.code, 0, `emuctl ${argv.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const projectId = JSON.parse(await cli('lab', 'up', file, '--json')).project_id as string;
    const net = (await d.api('GET', `/v2/projects/${projectId}/management`)).body;
    const nodes = (await d.api('GET', `/v2/projects/${projectId}/nodes`)).body as any[];
    const byName = (name: string) => nodes.find((n) => n.name === name);
    const [r1, r2] = [byName('R1'), byName('R2')];
    const ids = [projectId, r1.node_id, r2.node_id];
    const prefix = net.ipv4.subnet.replace(/0\/24$/, '');
    assert.deepEqual([r1, r2].map((n) => n.properties.mgmt_ipv4), [`${prefix}2/24`, `${prefix}3/24`], 'addresses in file order');
    assert.deepEqual(r1.ports.map((p: any) => [p.adapter_number, p.port_number]), [[0, 0], [1, 0]], 'the GNS3 ports are the data adapters only');

    const timings: string[] = [];
    for (const node of [r1, r2]) {
      const address = String(node.properties.mgmt_ipv4).split('/')[0];
      const shell = await GuestShell.connect(node.console_host, node.console, 180_000);
      shells.push(shell);
      const macs = (await shell.run('cat /sys/class/net/eth0/address /sys/class/net/eth1/address /sys/class/net/eth2/address')).output.trim().split(/\s+/);
      const base = String(node.properties.mac_address);
      assert.deepEqual(macs, [macPlus(base, 0), macPlus(base, 1), macPlus(base, 2)], 'eth0 and eth1 are the data adapters, eth2 the management NIC after them');
      assert.equal((await shell.run(DHCP_SCRIPT)).status, 0);
      const t0 = Date.now();
      const dhcp = await shell.run('ip link set eth2 up && udhcpc -i eth2 -f -q -n -t 20 -T 3 -s /tmp/dhcp.sh', 120_000);
      assert.equal(dhcp.status, 0, dhcp.output);
      timings.push(`${node.name} ${address}: lease in ${Date.now() - t0} ms`);
      assert.match((await shell.run('ip -4 -o addr show dev eth2')).output, new RegExp(`inet ${address.replace(/\./g, '\\.')}/24 `), 'exactly the address the controller assigned');
      assert.equal((await shell.run('cat /tmp/lease')).output.trim(), 'router=', 'no router given out');
      assert.doesNotMatch((await shell.run('ip route')).output, /default/, 'no route out');
      const t1 = Date.now();
      await pingable(address);
      timings[timings.length - 1] += `, host ping answered ${Date.now() - t1} ms later`;
    }
    console.log(`# DHCP on the management NIC (TCG guest, udhcpc on its serial shell): ${timings.join('; ')}`);
    assert.equal((await shells[0].run('ping -c 2 -W 5 198.18.77.10', 60_000)).status, 0, 'the data link on adapter 0 (eth0) works as before');

    const inventory = await cli('lab', 'inventory', 'mgmt-qemu', '--format', 'hosts');
    for (const node of [r1, r2]) assert.match(inventory, new RegExp(`^${String(node.properties.mgmt_ipv4).split('/')[0].replace(/\./g, '\\.')}\\s+${node.name}\\b`, 'm'), inventory);
    const inspect = JSON.parse(await cli('lab', 'inspect', 'mgmt-qemu', '--json'));
    assert.deepEqual(inspect.nodes.filter((n: any) => n.type === 'qemu').map((n: any) => [n.name, n.mgmt_ipv4]), [['R1', r1.properties.mgmt_ipv4], ['R2', r2.properties.mgmt_ipv4]]);

    const during = await hostState(ids);
    assert.deepEqual(during.links.filter((l) => l.startsWith('emuq')), [`emuq${short(r1.node_id)}`, `emuq${short(r2.node_id)}`].sort(), 'one TAP per VM');
    assert.equal(during.dnsmasq.length, 1, 'one dnsmasq for the network');

    // Deleting R2 removes its TAP and its qemu; R1 keeps its lease (the DHCP server runs on).
    shells[1].close();
    assert.equal((await d.api('DELETE', `/v2/projects/${projectId}/nodes/${r2.node_id}`)).status, 204);
    const afterDelete = await hostState([r2.node_id]);
    assert.deepEqual({ links: afterDelete.links, qemu: afterDelete.qemu }, { links: [], qemu: [] }, 'no TAP or qemu of the deleted node');
    assert.equal((await hostState([projectId])).dnsmasq.length, 1);
    const renew = await shells[0].run('ip link set eth2 up && udhcpc -i eth2 -f -q -n -t 20 -T 3 -s /tmp/dhcp.sh', 120_000);
    assert.equal(renew.status, 0, `R1 still gets its lease after the server restarted without R2's: ${renew.output}`);

    // kill -9: the next start removes the TAP, the bridge, the rules, dnsmasq and qemu the dead daemon left.
    shells[0].close();
    assert.equal(await d.stop('SIGKILL'), null);
    assert.notDeepEqual(await hostState(ids), NOTHING, 'a killed daemon leaves its network behind: the check below can fail');
    d = await startTestDaemon({ home, env: ENV });
    assert.deepEqual(await hostState(ids), NOTHING, 'as before the test after the restart');

    // The lab again, then lab down: nothing left either.
    await cli('lab', 'up', file);
    const again = (await d.api('GET', `/v2/projects/${projectId}/nodes`)).body as any[];
    assert.equal(again.find((n) => n.name === 'R1').properties.mgmt_ipv4, r1.properties.mgmt_ipv4, 'the same address after the restart');
    assert.equal((await hostState([projectId])).dnsmasq.length, 1);
    await cli('lab', 'down', 'mgmt-qemu');
    const ids2 = [...ids, ...again.map((n) => n.node_id)];
    assert.deepEqual(await hostState(ids2), NOTHING, 'as before the test after lab down');
  });
});
