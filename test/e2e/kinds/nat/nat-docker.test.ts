// A docker node on a NAT node's port gets a DHCP lease too (issue 20), and reaches the gateway.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Docker from 'dockerode';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { testImage } from '../../../helpers/docker-images.js';
import { freeTestSubnet } from '../../../helpers/host-network.js';
import { createLink, createNode, createProject } from '../../../helpers/lab.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '29230-29269', EMUCTL_CONSOLE_PORT_RANGE: '25560-25599' };
const docker = new Docker();

describe('NAT node: a docker node gets a lease', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-nat-docker-'));
  let d: TestDaemon;
  let subnet: { subnet: string; prefix: string };
  let container = '';

  before(async () => {
    subnet = await freeTestSubnet();
    d = await startTestDaemon({ home, env: { ...ENV, EMUCTL_NAT_SUBNET: subnet.subnet } });
  });
  after(async () => {
    await d?.stop();
    if (container) await docker.getContainer(container).remove({ force: true }).catch(() => undefined);
    removeHome(home);
  });

  it('udhcpc in a busybox container linked to the NAT node leases an address of the subnet and pings the gateway', async () => {
    const projectId = await createProject(d, 'nat-docker');
    const nat = await createNode(d, projectId, 'NAT1', 'nat');
    const host = await createNode(d, projectId, 'H1', 'docker', { properties: { image: await testImage('host') } });
    container = host.properties.container_id;
    await createLink(d, projectId, [host.node_id, 0], [nat.node_id, 0]);
    const started = await d.api('POST', `/v2/projects/${projectId}/nodes/${host.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const exec = (command: string[], timeout = 30) => d.api('POST', `/v2/projects/${projectId}/nodes/${host.node_id}/exec`, { command, timeout });
    // busybox's udhcpc, the lease applied by a script of our own (the image has no default one).
    const script = ['#!/bin/sh', '[ "$1" = bound ] && ip addr add "$ip/$mask" dev "$interface"', 'exit 0'].join('\n');
    const lease = await exec(['sh', '-c', `cat > /tmp/lease.sh <<'EOF'\n${script}\nEOF\nchmod +x /tmp/lease.sh && udhcpc -i eth0 -n -q -t 10 -T 1 -s /tmp/lease.sh`], 60);
    assert.equal(lease.status, 200, lease.text);
    assert.equal(lease.body.exit_code, 0, lease.body.output);
    assert.match(lease.body.output, new RegExp(`lease of ${subnet.prefix.replace(/\./g, '\\.')}\\.\\d+ obtained`));
    const addr = await exec(['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0']);
    assert.match(addr.body.output, new RegExp(`inet ${subnet.prefix.replace(/\./g, '\\.')}\\.\\d+/24`));
    const ping = await exec(['ping', '-c', '2', '-W', '2', `${subnet.prefix}.1`]);
    assert.equal(ping.body.exit_code, 0, ping.body.output);
  });
});
