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

/** Sends raw frames out of `ifname` (AF_PACKET): what the host side of a TAP sends reaches the dataplane as it is, tags included. */
async function sendRaw(ifname: string, frames: Buffer[]): Promise<void> {
  const script = 'import socket, sys\ns = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\ns.bind((sys.argv[1], 0))\nfor h in sys.argv[2:]: s.send(bytes.fromhex(h))';
  await run('python3', ['-c', script, ifname, ...frames.map((f) => f.toString('hex'))]);
}

/** An Ethernet frame with VLAN tags ([tpid, vid] outermost first) around an L3 packet. */
function ether(ethertype: number, l3: Buffer, tags: [number, number][] = []): Buffer {
  const head = Buffer.from('020000002610020000002611', 'hex');
  const tagBytes = tags.map(([tpid, vid]) => Buffer.from([tpid >> 8, tpid & 0xff, vid >> 8, vid & 0xff]));
  return Buffer.concat([head, ...tagBytes, Buffer.from([ethertype >> 8, ethertype & 0xff]), l3]);
}

const udp = (sport: number, dport: number, text: string): Buffer => {
  const b = Buffer.alloc(8);
  b.writeUInt16BE(sport, 0);
  b.writeUInt16BE(dport, 2);
  b.writeUInt16BE(8 + text.length, 4);
  return Buffer.concat([b, Buffer.from(text)]);
};

/** IPv4 (protocol 17) around `payload`; `options` 4-byte words of options; `fragment` the offset field (8-byte units). */
function ipv4(payload: Buffer, { options = 0, fragment = 0 } = {}): Buffer {
  const h = Buffer.alloc(20 + 4 * options);
  h[0] = 0x40 | (5 + options);
  h.writeUInt16BE(h.length + payload.length, 2);
  h.writeUInt16BE(fragment, 6);
  h[8] = 64;
  h[9] = 17;
  Buffer.from([198, 18, 26, 3, 198, 18, 26, 4]).copy(h, 12);
  return Buffer.concat([h, payload]);
}

/** IPv6 around `payload` behind the extension headers named (hop-by-hop options; a fragment header at `offset`). */
function ipv6(payload: Buffer, extensions: ({ hopByHop: true } | { fragment: number })[] = []): Buffer {
  const parts: Buffer[] = [];
  const types = extensions.map((e) => ('hopByHop' in e ? 0 : 44));
  extensions.forEach((e, i) => {
    const next = i + 1 < extensions.length ? types[i + 1] : 17;
    const x = Buffer.alloc(8);
    x[0] = next;
    if ('fragment' in e) x.writeUInt16BE(e.fragment << 3, 2);
    parts.push(x);
  });
  const h = Buffer.alloc(40);
  h[0] = 0x60;
  const body = Buffer.concat([...parts, payload]);
  h.writeUInt16BE(body.length, 4);
  h[6] = types[0] ?? 17;
  h[7] = 64;
  Buffer.from('20010db800260000000000000000000320010db8002600000000000000000004', 'hex').copy(h, 8);
  return Buffer.concat([h, body]);
}

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

  it('frames from a TAP: behind VLAN and QinQ tags, IPv4 options, IPv6 extension headers, a tunnel datagram is found and dropped; a later fragment is not a datagram', async () => {
    const TAP = `${PREFIX}t`;
    await dp.createNode('t', 'hub', [0, 1].map((port) => ({ port, type: 'access' as const, vlan: 1 })));
    const peer = await wire(dp, 't', 0);
    peers.push(peer);
    await dp.addNio('t', 1, { kind: 'tap', ifname: TAP });
    const L = peer.lport;
    const dropped = [
      ether(0x0800, ipv4(udp(23411, L, 'tap-tunnel-dot1q')), [[0x8100, 26]]),
      ether(0x0800, ipv4(udp(L, 9, 'tap-tunnel-qinq')), [[0x88a8, 100], [0x8100, 26]]),
      ether(0x0800, ipv4(udp(23412, L, 'tap-tunnel-options'), { options: 2 })),
      ether(0x86dd, ipv6(udp(23413, L, 'tap-tunnel-hop-by-hop'), [{ hopByHop: true }])),
      ether(0x86dd, ipv6(udp(L, 9, 'tap-tunnel-first-fragment'), [{ hopByHop: true }, { fragment: 0 }]), [[0x8100, 26]]),
    ];
    const passed = [
      // A later fragment has no UDP header: its first bytes are data, even when they read like L.
      ether(0x0800, ipv4(udp(23414, L, 'tap-later-fragment-4'), { fragment: 185 })),
      ether(0x86dd, ipv6(udp(23415, L, 'tap-later-fragment-6'), [{ fragment: 185 }])),
      ether(0x0800, ipv4(udp(23416, 9, 'tap-control-qinq')), [[0x88a8, 100], [0x8100, 26]]),
    ];
    await sendRaw(TAP, [...dropped, ...passed]);
    await until(() => carrying(peer.frames, 'tap-control-qinq').length > 0, 20_000, 'the last frame to cross the hub');
    for (const text of ['tap-later-fragment-4', 'tap-later-fragment-6']) assert.equal(carrying(peer.frames, text).length, 1, `${text} crosses`);
    for (const text of ['dot1q', 'qinq', 'options', 'hop-by-hop', 'first-fragment']) {
      assert.deepEqual(carrying(peer.frames, `tap-tunnel-${text}`), [], `${text}: the tunnel datagram never crosses`);
    }
    await dp.deleteNode('t');
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
