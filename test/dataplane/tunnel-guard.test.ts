// Issue 26: a host NIO must never hand the dataplane one of its own UDP tunnel datagrams. On `lo`,
// a hub's tunnel datagrams were captured by its own host port and sent round again (525 MB of pcap
// in 2 s). Real frames: UDP datagrams sent from a namespace over a veth the test made, and the real
// loop on the loopback. Runs on both engines (scripts/run-tests.mjs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createDataplane, PCAP_LINK_TYPES, type DataplaneApi } from '../../src/daemon/dataplane/index.js';
import { listInterfaces } from '../../src/daemon/dataplane/host-interfaces.js';
import { eth, parsePcap, type Peer, until, wire } from './helpers.js';

const run = promisify(execFile);

/** Names this run owns. */
const PREFIX = `etg${(process.pid % 46656).toString(36)}${Math.floor(Math.random() * 36).toString(36)}`;
const VETH = `${PREFIX}h`;
const VETH_NS = `${PREFIX}n`;
const NS = `${PREFIX}-ns`;
const IP_NS = '198.18.26.2', IP_FAR = '198.18.26.1';
const IP6_NS = '2001:db8:26::2', IP6_FAR = '2001:db8:26::1';
const FAR_MAC = '02:00:c6:12:1a:01';

const ip = (...args: string[]) => run('ip', args);
const inNs = (...args: string[]) => run('ip', ['netns', 'exec', NS, ...args]);

/** Sends, from the namespace, one UDP datagram per [family, source port, destination port, payload], in order. */
async function sendFromNs(datagrams: [4 | 6, number, number, string][]): Promise<void> {
  const script = `const dgram = require('node:dgram');
(async () => {
  for (const [family, sport, dport, text] of ${JSON.stringify(datagrams)}) {
    const s = dgram.createSocket(family === 4 ? 'udp4' : 'udp6');
    await new Promise((r) => s.bind(sport, family === 4 ? '${IP_NS}' : '${IP6_NS}', r));
    await new Promise((r, j) => s.send(text, dport, family === 4 ? '${IP_FAR}' : '${IP6_FAR}', (e) => (e ? j(e) : r())));
    s.close();
  }
})().catch((e) => { console.error(e.message); process.exit(1); });`;
  await inNs(process.execPath, '-e', script);
}

const carrying = (frames: Buffer[], text: string) => frames.filter((f) => f.includes(text));

describe('dataplane: a host NIO drops the datagrams of the dataplane\'s own tunnels', () => {
  let dp: DataplaneApi;
  let dir: string;
  const peers: Peer[] = [];
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };

  before(async () => {
    dp = await createDataplane({ log });
    dir = await mkdtemp(join(tmpdir(), 'emuctl-tunnel-guard-'));
    await ip('netns', 'add', NS);
    await ip('link', 'add', VETH, 'type', 'veth', 'peer', 'name', VETH_NS);
    await ip('link', 'set', VETH, 'up');
    await ip('link', 'set', VETH_NS, 'netns', NS);
    await inNs('ip', 'addr', 'add', `${IP_NS}/24`, 'dev', VETH_NS);
    await inNs('ip', '-6', 'addr', 'add', `${IP6_NS}/64`, 'dev', VETH_NS, 'nodad');
    await inNs('ip', 'link', 'set', VETH_NS, 'up');
    // The far addresses answer no ARP or neighbour solicitation: the namespace knows their MAC.
    await inNs('ip', 'neigh', 'add', IP_FAR, 'lladdr', FAR_MAC, 'dev', VETH_NS, 'nud', 'permanent');
    await inNs('ip', '-6', 'neigh', 'add', IP6_FAR, 'lladdr', FAR_MAC, 'dev', VETH_NS, 'nud', 'permanent');
  });
  after(async () => {
    for (const p of peers) p.close();
    await dp.close().catch(() => undefined);
    await ip('netns', 'delete', NS).catch(() => undefined);
    for (const name of await listInterfaces(PREFIX).catch(() => [])) await ip('link', 'delete', name).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('UDP from or to a tunnel port (IPv4, IPv6) is dropped at the host port; other UDP, and a port whose tunnel closed, pass', async () => {
    await dp.createNode('g', 'hub', [0, 1, 2].map((port) => ({ port, type: 'access' as const, vlan: 1 })));
    const peer = await wire(dp, 'g', 0);
    peers.push(peer);
    const gone = await wire(dp, 'g', 2);
    peers.push(gone);
    await dp.addNio('g', 1, { kind: 'ethernet', ifname: VETH });
    await dp.removeNio('g', 2);
    const L = peer.lport;

    await sendFromNs([
      [4, 23401, L, 'tunnel-to-4'], [4, L, 9, 'tunnel-from-4'], [6, 23402, L, 'tunnel-to-6'], [6, L, 9, 'tunnel-from-6'],
      [4, 23403, gone.lport, 'closed-tunnel-4'], [4, 23404, 9, 'control-4'], [6, 23405, 9, 'control-6'],
    ]);
    // Frames cross the veth, the packet socket and the hub in order: once the last has come, the earlier ones would have.
    await until(() => carrying(peer.frames, 'control-6').length > 0, 20_000, 'the last datagram to cross the hub');
    assert.equal(carrying(peer.frames, 'control-4').length, 1, 'plain UDP over IPv4 crosses');
    assert.equal(carrying(peer.frames, 'closed-tunnel-4').length, 1, 'UDP to the port of a tunnel that closed crosses');
    for (const text of ['tunnel-to-4', 'tunnel-from-4', 'tunnel-to-6', 'tunnel-from-6']) {
      assert.deepEqual(carrying(peer.frames, text), [], `${text}: a datagram of a tunnel port never crosses`);
    }
    const host = (await dp.stats('g')).find((s) => s.port === 1)!;
    assert.ok(host.drops >= 4, `the host port counted the dropped datagrams: ${JSON.stringify(host)}`);
    await dp.deleteNode('g');
  });

  it('a hub port on lo with a capture on its tunnel port: no tunnel datagram goes round, the capture stays small', async () => {
    await dp.createNode('loop', 'hub', [0, 1].map((port) => ({ port, type: 'access' as const, vlan: 1 })));
    const peer = await wire(dp, 'loop', 1);
    peers.push(peer);
    const pcap = join(dir, 'loop.pcap');
    await dp.startCapture('loop', 1, pcap, PCAP_LINK_TYPES.DLT_EN10MB);
    await dp.addNio('loop', 0, { kind: 'ethernet', ifname: 'lo' });

    // A frame of an experimental ethertype: on lo the stack ignores it; the hub's lo port reads it back and sends it to the peer once.
    const frames = [1, 2, 3].map((n) => eth('02:00:00:00:26:02', '02:00:00:00:26:01', 0x88b5, Buffer.from(`guard-frame-${n}`.padEnd(46, '.'))));
    for (const f of frames) {
      peer.send(f);
      // Each frame's own tunnel datagrams reach lo before the next is sent: a loop would show before the last frame's return.
      await until(() => peer.frames.some((g) => g.equals(f)), 20_000, 'the frame to come back once through lo');
    }
    const wrapped = carrying(peer.frames, 'guard-frame-').filter((g) => !frames.some((f) => f.equals(g)));
    assert.deepEqual(wrapped.map((g) => g.length), [], 'no tunnel datagram carrying a frame came back through the hub');
    for (const f of frames) assert.equal(peer.frames.filter((g) => g.equals(f)).length, 1, 'each frame came back exactly once');
    const lo = (await dp.stats('loop')).find((s) => s.port === 0)!;
    assert.ok(lo.drops >= frames.length, `the lo port dropped the tunnel datagrams it saw: ${JSON.stringify(lo)}`);

    await dp.stopCapture('loop', 1);
    const records = parsePcap(await readFile(pcap)).records.filter((r) => r.data.includes('guard-frame-'));
    // Each frame in from the peer and out to it again: the loop made this grow without end.
    assert.equal(records.length, 2 * frames.length, `the capture holds each frame twice: ${records.map((r) => r.len).join(', ')}`);
    await dp.deleteNode('loop');
  });
});
