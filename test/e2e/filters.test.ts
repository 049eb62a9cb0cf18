// Link filters measured with real traffic: two VPCS on a switch, filters on the PC1–switch link.
// As in GNS3, a link's filters act on both directions: on PC1's echo requests and on PC2's replies.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectVpcsConsole, ping, setIp, type PingResult, type VpcsConsole } from '../../src/client/vpcs-console.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { frameCount } from '../helpers/tshark.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '31000-31199', EMUCTL_CONSOLE_PORT_RANGE: '25100-25199' };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};


describe('end to end: link filters measured with VPCS pings', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-e2e-filters-'));
  let d: TestDaemon | undefined;
  let pid: string;
  let pc1: any;
  let pc2: any;
  let l1: any;
  let l2: any;
  let c1: VpcsConsole;
  let c2: VpcsConsole;
  let baselineMs: number;

  const setLink = async (body: Record<string, unknown>) => {
    const r = await d!.api('PUT', `/v2/projects/${pid}/links/${l1.link_id}`, body);
    assert.equal(r.status, 201, r.text);
    return r.body;
  };
  const describeRun = (r: PingResult) => `sent ${r.sent}, received ${r.received}${r.error ? `, error "${r.error}"` : ''}, RTTs ${r.rttsMs.join(' ')}`;

  before(async () => {
    d = await startTestDaemon({ home, env: ENV });
    pid = await createProject(d, 'filters-lab');
    const sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    pc1 = await createNode(d, pid, 'PC1', 'vpcs');
    pc2 = await createNode(d, pid, 'PC2', 'vpcs');
    l1 = await createLink(d, pid, [pc1.node_id, 0], [sw.node_id, 0]);
    l2 = await createLink(d, pid, [pc2.node_id, 0], [sw.node_id, 1]);
    for (const pc of [pc1, pc2]) {
      const r = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
      assert.equal(r.status, 200, r.text);
    }
    c1 = await connectVpcsConsole('127.0.0.1', pc1.console);
    c2 = await connectVpcsConsole('127.0.0.1', pc2.console);
    await setIp(c1, '10.0.0.1/24');
    await setIp(c2, '10.0.0.2/24');
  });
  afterEach(async () => {
    // Whatever a test left behind, the next one starts on a clean link.
    if (!d || !l1) return;
    await d.api('PUT', `/v2/projects/${pid}/links/${l1.link_id}`, { filters: {}, suspend: false }).catch(() => {});
  });
  after(async () => {
    c1?.close();
    c2?.close();
    await d?.stop();
    removeHome(home);
  });

  it('baseline: pings cross the unfiltered link', async (t) => {
    await ping(c1, '10.0.0.2', 1, { waitMs: 2000 }); // ARP, and a first echo out of the way
    const r = await ping(c1, '10.0.0.2', 10, { intervalMs: 100, waitMs: 1000 });
    assert.equal(r.received, 10, describeRun(r));
    baselineMs = median(r.rttsMs);
    t.diagnostic(`baseline RTT median ${baselineMs} ms`);
  });

  it('delay 40 ms acts on both directions: every RTT is at least 80 ms (GNS3 2.2.42 measures 80.6 ms); delay 0 takes it away', async (t) => {
    const link = await setLink({ filters: { delay: [40, 0] } });
    assert.deepEqual(link.filters, { delay: [40, 0] });
    const delayed = await ping(c1, '10.0.0.2', 10, { intervalMs: 100, waitMs: 2000 });
    assert.equal(delayed.received, 10, describeRun(delayed));
    const m = median(delayed.rttsMs);
    t.diagnostic(`RTT median ${m} ms with a 40 ms delay (baseline ${baselineMs} ms)`);
    assert.ok(Math.min(...delayed.rttsMs) >= 80, `every RTT is at least 2 × 40 ms (${describeRun(delayed)})`);

    const cleared = await setLink({ filters: { delay: [0, 0] } });
    assert.deepEqual(cleared.filters, {}, 'a value of 0 turns the filter off');
    const restored = await ping(c1, '10.0.0.2', 10, { intervalMs: 100, waitMs: 1000 });
    assert.equal(restored.received, 10, describeRun(restored));
    assert.ok(median(restored.rttsMs) < m, `without the delay the RTTs drop again: median ${median(restored.rttsMs)} ms, was ${m} ms`);
  });

  it('packet_loss 50% on both directions loses about three pings in four (1 - 0.5 × 0.5)', async (t) => {
    await ping(c1, '10.0.0.2', 1, { waitMs: 2000 }); // the ARP entry is fresh, so no ARP is lost mid-run
    await setLink({ filters: { packet_loss: [50] } });
    const r = await ping(c1, '10.0.0.2', 200, { intervalMs: 10, waitMs: 200 });
    assert.equal(r.error, undefined, describeRun(r));
    assert.equal(r.sent, 200, describeRun(r));
    const lostPct = (100 * (r.sent - r.received)) / r.sent;
    t.diagnostic(`lost ${lostPct}% of 200 pings`);
    // A ping survives with probability 0.25: Binomial(200, 0.75) lost, sd 3.1 points, so 55–95% is a band of more
    // than six sd on each side; a filter on one direction only (about 50%) falls outside it.
    assert.ok(lostPct >= 55 && lostPct <= 95, `lost ${lostPct}% of 200 pings with 50% loss each way`);

    await setLink({ filters: { packet_loss: [0] } });
    const restored = await ping(c1, '10.0.0.2', 5, { intervalMs: 50, waitMs: 1000 });
    assert.equal(restored.received, 5, describeRun(restored));
  });

  it('frequency_drop -1 drops every frame; 0 turns it off', async () => {
    const link = await setLink({ filters: { frequency_drop: [-1] } });
    assert.deepEqual(link.filters, { frequency_drop: [-1] });
    const r = await ping(c1, '10.0.0.2', 5, { intervalMs: 50, waitMs: 300 });
    assert.equal(r.sent, 5, describeRun(r));
    assert.equal(r.received, 0, describeRun(r));

    await setLink({ filters: { frequency_drop: [0] } });
    const restored = await ping(c1, '10.0.0.2', 3, { intervalMs: 50, waitMs: 1000 });
    assert.equal(restored.received, 3, describeRun(restored));
  });

  it('bpf "icmp" drops the pings but lets ARP through (ARP table and a capture on the far link show it)', async () => {
    const capture = await d!.api('POST', `/v2/projects/${pid}/links/${l2.link_id}/start_capture`, { capture_file_name: 'bpf-far-side.pcap' });
    assert.equal(capture.status, 201, capture.text);
    let stopped = false;
    try {
      const link = await setLink({ filters: { bpf: ['icmp'] } });
      assert.deepEqual(link.filters, { bpf: ['icmp'] });
      await c1.run('clear arp'); // PC1 forgets PC2, so the next ping must ARP across the filter
      assert.doesNotMatch(await c1.run('show arp'), /10\.0\.0\.2/, 'ARP table cleared');
      const r = await ping(c1, '10.0.0.2', 3, { intervalMs: 50, waitMs: 300 });
      // Had the ARP request been dropped, VPCS would say "host (10.0.0.2) not reachable" and send nothing.
      assert.equal(r.error, undefined, describeRun(r));
      assert.equal(r.sent, 3, describeRun(r));
      assert.equal(r.received, 0, describeRun(r));
      const arp = await c1.run('show arp');
      assert.match(arp, new RegExp(`${pc2.properties.mac_address}\\s+10\\.0\\.0\\.2`, 'i'), `PC1 learnt PC2 through ARP:\n${arp}`);

      // Stopping the capture flushes what the writer batched: the file is complete once it answers.
      assert.equal((await d!.api('POST', `/v2/projects/${pid}/links/${l2.link_id}/stop_capture`, {})).status, 201);
      stopped = true;
      const file = capture.body.capture_file_path;
      assert.ok((await frameCount(file, 'arp.opcode == 1 && arp.src.proto_ipv4 == 10.0.0.1')) >= 1, 'PC1\'s ARP request reached PC2\'s link');
      assert.equal(await frameCount(file, 'icmp && ip.src == 10.0.0.1'), 0, 'no echo request from PC1 got past the switch');
    } finally {
      if (!stopped) await d!.api('POST', `/v2/projects/${pid}/links/${l2.link_id}/stop_capture`, {});
    }

    await setLink({ filters: { bpf: [''] } });
    const restored = await ping(c1, '10.0.0.2', 3, { intervalMs: 50, waitMs: 1000 });
    assert.equal(restored.received, 3, describeRun(restored));
  });

  it('suspend cuts the link; resume restores it', async () => {
    const suspended = await setLink({ suspend: true });
    assert.equal(suspended.suspend, true);
    assert.equal((await d!.api('GET', `/v2/projects/${pid}/links/${l1.link_id}`)).body.suspend, true);
    const r = await ping(c1, '10.0.0.2', 3, { intervalMs: 50, waitMs: 300 });
    assert.equal(r.received, 0, describeRun(r));
    // PC2's side is cut as well: a suspended link drops frames both ways.
    const back = await ping(c2, '10.0.0.1', 2, { intervalMs: 50, waitMs: 300 });
    assert.equal(back.received, 0, describeRun(back));

    const resumed = await setLink({ suspend: false });
    assert.equal(resumed.suspend, false);
    const restored = await ping(c1, '10.0.0.2', 3, { intervalMs: 50, waitMs: 1000 });
    assert.equal(restored.received, 3, describeRun(restored));
  });
});
