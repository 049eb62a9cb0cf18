// A capture whose disk fills up stops cleanly, on both dataplane engines: the file ends on its last
// whole record (tshark reads it without complaint), the link says it no longer captures, the
// project's notification stream gets a log.error naming the disk problem, and the daemon logs it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { openWebSocket, type StreamRecorder } from '../helpers/notifications.js';
import { mountSmallDisk, type SmallDisk } from '../helpers/small-disk.js';
import { ethernetFrame, sleep, udpEndpoint, type UdpEndpoint } from '../helpers/udp.js';

const run = promisify(execFile);

/** The pcap records' sizes, read by hand: throws unless the file is a header and whole records. */
function wholeRecords(file: string): number[] {
  const data = readFileSync(file);
  assert.ok(data.length >= 24, 'the global header is there');
  assert.equal(data.readUInt32LE(0), 0xa1b2c3d4);
  const sizes: number[] = [];
  let o = 24;
  while (o < data.length) {
    assert.ok(o + 16 <= data.length, `a record header is cut at byte ${o} of ${data.length}`);
    const caplen = data.readUInt32LE(o + 8);
    assert.ok(o + 16 + caplen <= data.length, `the record at byte ${o} (${caplen} bytes) is cut: the file has ${data.length}`);
    sizes.push(caplen);
    o += 16 + caplen;
  }
  return sizes;
}

for (const [engine, ports] of [['js', '29720-29769'], ['native', '29770-29819']] as const) {
  describe(`a capture on a disk that fills up stops cleanly (${engine} engine)`, () => {
    let disk: SmallDisk;
    let d: TestDaemon;
    let pid: string;
    let link: any;
    let a: UdpEndpoint;
    let b: UdpEndpoint;
    /** The switch port (SW1/7) frames from `a` enter by. */
    let probe: number;
    let stream: StreamRecorder & { socket: { close(): void } };

    before(async () => {
      disk = mountSmallDisk(4 << 20, `emuctl-capture-disk-${engine}-`);
      d = await startTestDaemon({ home: disk.path, env: { EMUCTL_UDP_PORT_RANGE: ports, EMUCTL_DATAPLANE: engine } });
      assert.equal((await d.api('GET', '/v2/version')).status, 200);
      pid = await createProject(d, 'cap');
      const sw1 = await createNode(d, pid, 'SW1', 'ethernet_switch');
      const sw2 = await createNode(d, pid, 'SW2', 'ethernet_switch');
      link = await createLink(d, pid, [sw1.node_id, 0], [sw2.node_id, 0]);
      a = await udpEndpoint();
      b = await udpEndpoint();
      for (const [sw, far] of [[sw1, a.port], [sw2, b.port]] as const) {
        const lport = (await d.api('POST', `/v2/compute/projects/${pid}/ports/udp`, {})).body.udp_port;
        const nio = await d.api('POST', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/7/nio`, { type: 'nio_udp', lport, rhost: '127.0.0.1', rport: far });
        assert.equal(nio.status, 201, nio.text);
        if (sw === sw1) probe = lport;
      }
      stream = await openWebSocket(d.url, `/v2/projects/${pid}/notifications/ws`);
    });
    after(async () => {
      stream?.socket.close();
      await a?.close();
      await b?.close();
      await d?.stop();
      disk?.remove();
    });

    it('the file ends on a whole record, the link stops capturing, a log.error names the disk problem', async () => {
      const started = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, {});
      assert.equal(started.status, 201, started.text);
      const pcap = started.body.capture_file_path;
      // Room for a few records, not for the next batch: its write is cut short by the full disk.
      disk.fill(150_000);
      const payload = Buffer.alloc(900, 0x61);
      for (let i = 0; i < 200 && (await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}`)).body.capturing; i++) {
        for (let j = 0; j < 20; j++) await a.send(ethernetFrame('02:00:00:00:00:0b', '02:00:00:00:00:0a', 0x88b5, payload), probe);
        await sleep(20);
      }
      const after = (await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}`)).body;
      assert.equal(after.capturing, false, `the link no longer says it captures; daemon log:\n${d.log().slice(-3000)}`);
      assert.equal(after.capture_file_path, pcap, 'the file is still named');
      const log = await stream.next((m) => m.action === 'log.error');
      assert.match(log.event.message, /no space left on the device \(ENOSPC\)/);
      assert.ok(log.event.message.includes(pcap), log.event.message);
      await stream.next((m) => m.action === 'link.updated' && m.event.capturing === false);
      await d.waitForLog(/ERROR .*Capture on .* stopped: cannot write .*ENOSPC/);

      const records = wholeRecords(pcap);
      assert.ok(records.length > 0, 'the records written before the disk filled are kept');
      assert.ok(records.every((n) => n === 14 + payload.length), 'every record is a whole frame');
      const { stdout, stderr } = await run('tshark', ['-r', pcap, '-T', 'fields', '-e', 'frame.len'], { timeout: 30_000 });
      assert.doesNotMatch(stderr, /cut short|appears to be damaged|corrupt/i);
      assert.equal(stdout.split('\n').filter(Boolean).length, records.length);
    });

    it('a capture whose first batch does not fit stops too, leaving the header alone', async () => {
      disk.free();
      const started = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, {});
      assert.equal(started.status, 201, started.text);
      disk.fill();
      const payload = Buffer.alloc(900, 0x62);
      for (let i = 0; i < 200 && (await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}`)).body.capturing; i++) {
        for (let j = 0; j < 20; j++) await a.send(ethernetFrame('02:00:00:00:00:0b', '02:00:00:00:00:0a', 0x88b5, payload), probe);
        await sleep(20);
      }
      assert.equal((await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}`)).body.capturing, false);
      assert.deepEqual(wholeRecords(started.body.capture_file_path), []);
    });

    it('with room again, a new capture on the link works', async () => {
      disk.free();
      const again = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, {});
      assert.equal(again.status, 201, again.text);
      assert.equal(again.body.capturing, true);
      const stopped = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/stop_capture`, {});
      assert.equal(stopped.status, 201, stopped.text);
    });
  });
}
