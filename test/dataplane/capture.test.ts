import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createDataplane, PCAP_LINK_TYPES, type DataplaneApi } from '../../src/daemon/dataplane/index.js';
import { PcapWriter } from '../../src/daemon/dataplane/pcap-writer.js';
import { arpRequest, eth, icmpEcho, parsePcap, Peer, settle, tagged, until, wire } from './helpers.js';

const A = '02:00:00:00:00:0a';
const B = '02:00:00:00:00:0b';
const BCAST = 'ff:ff:ff:ff:ff:ff';

const run = promisify(execFile);

async function tshark(path: string): Promise<string[]> {
  const { stdout } = await run('tshark', ['-r', path, '-n', '-T', 'fields', '-e', 'frame.len', '-e', '_ws.col.Protocol']);
  return stdout.trim().split('\n').filter(Boolean);
}

describe('dataplane capture', () => {
  let dp: DataplaneApi;
  let dir: string;
  const peers: Peer[] = [];
  let n = 0;

  /** Switch: port 0 a dot1q trunk (native 1) where captures run, port 1 access VLAN 20, port 2 access VLAN 1. */
  async function lab() {
    const id = `cap${++n}`;
    await dp.createNode(id, 'switch', [{ port: 0, type: 'dot1q', vlan: 1 }, { port: 1, type: 'access', vlan: 20 }, { port: 2, type: 'access', vlan: 1 }]);
    const trunk = await wire(dp, id, 0);
    const v20 = await wire(dp, id, 1);
    const v1 = await wire(dp, id, 2);
    peers.push(trunk, v20, v1);
    return { id, trunk, v20, v1 };
  }

  before(async () => {
    dp = await createDataplane();
    dir = await mkdtemp(join(tmpdir(), 'emuctl-cap-'));
  });
  after(async () => {
    for (const p of peers) p.close();
    await dp.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the global header before startCapture resolves, with every DLT', async () => {
    const { id } = await lab();
    for (const [name, linkType] of Object.entries(PCAP_LINK_TYPES)) {
      const path = join(dir, `hdr-${name}.pcap`);
      const info = await dp.startCapture(id, 0, path, linkType);
      assert.equal(info.path, path);
      assert.equal(info.linkType, linkType);
      const f = parsePcap(await readFile(path));
      assert.deepEqual({ ...f, records: f.records.length }, {
        magic: 0xa1b2c3d4, major: 2, minor: 4, thiszone: 0, sigfigs: 0, snaplen: 65535, network: linkType, records: 0,
      });
      await dp.stopCapture(id, 0);
      await run('tshark', ['-r', path]); // an empty capture of each link type opens
    }
    // The link type is decided once, before the dataplane (pcapLinkType: test/unit/util/data-link-types.test.ts).
  });

  it('records both directions, as on the wire, and tshark reads it', async () => {
    const { id, trunk, v20, v1 } = await lab();
    const path = join(dir, 'both.pcap');
    const t0 = Date.now();
    await dp.startCapture(id, 0, path, PCAP_LINK_TYPES.DLT_EN10MB);
    const ping = icmpEcho(B, A, [10, 0, 0, 1], [10, 0, 0, 2]);
    trunk.send(tagged(ping, 20)); // received on port 0
    await v20.waitFor(1);
    const arp = arpRequest(B, [10, 0, 0, 2], [10, 0, 0, 1]);
    v20.send(arp); // sent out of port 0, tagged 20
    v1.send(ping); // sent out of port 0, native VLAN: untagged
    await trunk.waitFor(2);
    await dp.stopCapture(id, 0);
    assert.equal(await dp.captureInfo(id, 0), null);

    const f = parsePcap(await readFile(path));
    assert.deepEqual(f.records.map((r) => r.data), [tagged(ping, 20), tagged(arp, 20), ping]);
    for (const r of f.records) {
      assert.equal(r.caplen, r.len);
      assert.ok(r.usec < 1_000_000);
      const ms = r.sec * 1000 + r.usec / 1000;
      assert.ok(ms >= t0 - 1000 && ms <= Date.now() + 1000, 'wall-clock timestamps');
    }
    assert.deepEqual(await tshark(path), [`${ping.length + 4}\tICMP`, `${arp.length + 4}\tARP`, `${ping.length}\tICMP`]);
  });

  it('records received frames after the filters', async () => {
    const { id, trunk, v1 } = await lab();
    await dp.updateNio(id, 0, { filters: { bpf: ['arp'] } });
    const path = join(dir, 'filtered.pcap');
    await dp.startCapture(id, 0, path, 1);
    trunk.send(arpRequest(A, [10, 0, 0, 1], [10, 0, 0, 2]));
    const ping = icmpEcho(B, A, [10, 0, 0, 1], [10, 0, 0, 2]);
    trunk.send(ping);
    await v1.waitFor(1);
    await settle(50);
    await dp.stopCapture(id, 0);
    assert.deepEqual(parsePcap(await readFile(path)).records.map((r) => r.data), [ping]);
  });

  it('is a valid file while it grows; a restart starts a fresh file', async () => {
    const { id, trunk, v1 } = await lab();
    const path = join(dir, 'live.pcap');
    const first = await dp.startCapture(id, 0, path, 1);
    for (let i = 0; i < 50; i++) trunk.send(eth(BCAST, A, 0x88b5));
    await v1.waitFor(50);
    await until(async () => parsePcap(await readFile(path)).records.length === 50, 2000, 'the batch to reach the file');
    assert.equal((await tshark(path)).length, 50, 'tshark reads the growing file');
    for (let i = 0; i < 10; i++) trunk.send(eth(BCAST, A, 0x88b6));
    await v1.waitFor(60);
    await until(async () => parsePcap(await readFile(path)).records.length === 60, 2000);

    const second = await dp.startCapture(id, 0, path, 1);
    assert.equal(second.generation, first.generation + 1);
    assert.equal((await stat(path)).size, 24, 'restart truncates: no stale frames');
    trunk.send(eth(BCAST, A, 0x88b7));
    await v1.waitFor(61);
    await dp.stopCapture(id, 0);
    const f = parsePcap(await readFile(path));
    assert.equal(f.records.length, 1);
    assert.equal(f.records[0].data.readUInt16BE(12), 0x88b7);
  });

  it('never writes through a link: a capture file or a directory below the root that is a link is refused, its target intact', async () => {
    const { id } = await lab();
    const target = join(dir, 'target.txt');
    await writeFile(target, 'keep me');
    await symlink(target, join(dir, 'linked.pcap'));
    await assert.rejects(dp.startCapture(id, 0, join(dir, 'linked.pcap'), 1), /linked\.pcap' is a symbolic link/);
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'captures-link'));
    await assert.rejects(dp.startCapture(id, 0, join(dir, 'captures-link', 'x.pcap'), 1, dir), /captures-link' is a symbolic link/);
    assert.equal(await readFile(target, 'utf8'), 'keep me');
    assert.deepEqual(await readdir(join(dir, 'real')), []);
    assert.equal(await dp.captureInfo(id, 0), null);
  });

  it('removeNio and close() stop and flush the captures', async () => {
    const { id, trunk, v1 } = await lab();
    const path = join(dir, 'removed.pcap');
    await dp.startCapture(id, 0, path, 1);
    trunk.send(eth(BCAST, A, 0x88b5));
    await v1.waitFor(1);
    await dp.removeNio(id, 0);
    assert.equal(await dp.captureInfo(id, 0), null);
    assert.equal(parsePcap(await readFile(path)).records.length, 1, 'flushed at once, not 50 ms later');
    await assert.rejects(dp.startCapture(id, 0, path, 1), /no NIO/);

    const other = await createDataplane();
    await other.createNode('h', 'hub', [{ port: 0, type: 'access', vlan: 1 }, { port: 1, type: 'access', vlan: 1 }]);
    const a = await wire(other, 'h', 0);
    const b = await wire(other, 'h', 1);
    peers.push(a, b);
    const closed = join(dir, 'closed.pcap');
    await other.startCapture('h', 1, closed, 1);
    for (let i = 0; i < 5; i++) a.send(eth(BCAST, A, 0x88b5));
    await b.waitFor(5);
    await other.close();
    assert.equal(parsePcap(await readFile(closed)).records.length, 5);
  });

  it('survives kill -9 of the capturing process with every frame older than a flush', async () => {
    const path = join(dir, 'killed.pcap');
    const [a, b] = [await Peer.open(), await Peer.open()];
    peers.push(a, b);
    const child = spawn(process.execPath, [new URL('./fixtures/capture-child.js', import.meta.url).pathname, path, String(a.port), String(b.port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      const [, lport0, lport1] = line.toString().trim().split(' ').map(Number);
      await a.connect(lport0);
      await b.connect(lport1);
      for (let i = 0; i < 300; i++) a.send(eth(BCAST, A, 0x88b5, Buffer.alloc(500)));
      await b.waitFor(300);
      await settle(200);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    const f = parsePcap(await readFile(path));
    assert.equal(f.records.length, 300);
    assert.equal((await tshark(path)).length, 300);
  });

  it('truncates records to the snaplen', async () => {
    const path = join(dir, 'snap.pcap');
    const w = await PcapWriter.create(await open(path, 'w'), 1);
    w.record(Buffer.alloc(70000, 1));
    w.record(Buffer.alloc(60, 2));
    await w.close();
    const f = parsePcap(await readFile(path));
    assert.deepEqual(f.records.map((r) => [r.caplen, r.len]), [[65535, 70000], [60, 60]]);
  });
});
