// The console websocket of a QEMU guest (its serial line: QEMU's telnet server on a unix socket, behind the daemon's console relay) against a real
// guest booted under TCG: a busybox shell answers through the controller's route.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openConsoleClient, type ConsoleClient } from '../../../helpers/console-ws.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { createNode, createProject } from '../../../helpers/lab.js';
import { guestCmdline, testGuest } from '../../../helpers/qemu-guest.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '23500-23549', EMUCTL_CONSOLE_PORT_RANGE: '23450-23459', EMUCTL_QEMU_ACCEL: 'tcg' };

describe('console websocket of a QEMU guest', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-qemu-console-ws-'));
  let d: TestDaemon;
  let client: ConsoleClient | undefined;

  before(async () => {
    const guest = await testGuest();
    const images = join(tmp, 'home', 'images', 'QEMU');
    mkdirSync(images, { recursive: true });
    copyFileSync(guest.kernel, join(images, 'vmlinuz'));
    copyFileSync(guest.initrd, join(images, 'initrd.img'));
    d = await startTestDaemon({ home: join(tmp, 'home'), env: ENV });
  });
  after(async () => {
    await client?.close();
    await d?.stop();
    removeHome(tmp);
  });

  it('the guest\'s shell answers through /v2/projects/{p}/nodes/{n}/console/ws in binary frames', { timeout: 300_000 }, async () => {
    const pid = await createProject(d, 'qemu-console');
    const r1 = await createNode(d, pid, 'R1', 'qemu', {
      properties: { kernel_image: 'vmlinuz', initrd: 'initrd.img', ram: 128, kernel_command_line: guestCmdline(['198.18.4.1/24']) },
    });
    assert.equal(r1.console_type, 'telnet');
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${r1.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    client = await openConsoleClient(`${d.url.replace(/^http/, 'ws')}/v2/projects/${pid}/nodes/${r1.node_id}/console/ws`);
    // The guest may still be booting: ask until its shell computes the answer (the echo alone is not it).
    for (let attempt = 1; ; attempt++) {
      const from = client.text().length;
      client.ws.send(Buffer.from('echo answer-$((6*7))\n'));
      try {
        await client.waitFor(/answer-42/, from, 5000);
        break;
      } catch (err) {
        if (attempt === 40) throw err;
      }
    }
    const from = client.text().length;
    // A text frame is typed as its bytes; the guest is the one started with this kernel command line.
    client.ws.send('cat /proc/cmdline\n');
    await client.waitFor(/guest\.eth0=198\.18\.4\.1\/24/, from);
    assert.equal(client.textFrames(), 0, 'binary frames only, as GNS3 sends them');
  });
});
