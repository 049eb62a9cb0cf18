import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createDataplane, PCAP_LINK_TYPES, type DataplaneApi } from '../../src/daemon/dataplane/index.js';
import { listInterfaces, removeInterfaces } from '../../src/daemon/dataplane/host-interfaces.js';
import { icmpEcho, mac, Peer, until, wire } from './helpers.js';

const run = promisify(execFile);

/** Names this run owns: a prefix no other run (or engine pass) shares. */
const PREFIX = `emt${(process.pid % 46656).toString(36)}${Math.floor(Math.random() * 36).toString(36)}`;
const TAP_A = `${PREFIX}a`;
const TAP_B = `${PREFIX}b`;
const NS_A = `${PREFIX}-nsa`;
const NS_B = `${PREFIX}-nsb`;
const IP_A = '198.18.5.1';
const IP_B = '198.18.5.2';

const ip = (...args: string[]) => run('ip', args);
const inNs = (ns: string, ...args: string[]) => run('ip', ['netns', 'exec', ns, ...args]);

const ECHO_PORT = 7777;
/** A UDP echo server (B's side), run by node inside the namespace. */
const ECHO_SERVER = `const s = require('node:dgram').createSocket('udp4');
s.on('message', (m, r) => s.send(m, r.port, r.address));
s.bind(${ECHO_PORT}, '${IP_B}', () => console.log('ready'));`;
/** Sends numbered datagrams from A to B's echo server, one every 200 ms; prints how many came back. */
const echoClient = (count: number) => `const s = require('node:dgram').createSocket('udp4');
const got = new Set();
s.on('message', (m) => got.add(m.toString()));
s.bind(0, '${IP_A}', () => {
  let i = 0;
  const t = setInterval(() => { if (i < ${count}) s.send('probe ' + i++, ${ECHO_PORT}, '${IP_B}'); }, 200);
  setTimeout(() => { clearInterval(t); console.log(got.size); s.close(); }, ${count} * 200 + 1500);
});`;

/** True when every probe from A to B (over the dataplane) comes back: real frames both ways, ARP included. */
async function echoes(count = 3): Promise<boolean> {
  const { stdout } = await inNs(NS_A, process.execPath, '-e', echoClient(count));
  return Number(stdout.trim()) === count;
}

/** True when no probe comes back. */
async function silent(count = 3): Promise<boolean> {
  const { stdout } = await inNs(NS_A, process.execPath, '-e', echoClient(count));
  return Number(stdout.trim()) === 0;
}

async function startEchoServer(): Promise<ChildProcess> {
  const child = spawn('ip', ['netns', 'exec', NS_B, process.execPath, '-e', ECHO_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await Promise.race([once(child.stdout!, 'data'), once(child, 'exit').then(() => { throw new Error('echo server exited'); })])) as [Buffer];
  assert.equal(line.toString().trim(), 'ready');
  return child;
}

async function nsHasLink(ns: string, name: string): Promise<boolean> {
  try {
    await inNs(ns, 'ip', 'link', 'show', name);
    return true;
  } catch {
    return false;
  }
}

/** Moves a TAP the dataplane opened into the namespace and gives it an address there (the host end of a container's eth0, in effect). */
async function plug(tap: string, ns: string, addr: string): Promise<void> {
  await ip('link', 'set', tap, 'netns', ns);
  await inNs(ns, 'ip', 'addr', 'add', `${addr}/24`, 'dev', tap);
  await inNs(ns, 'ip', 'link', 'set', tap, 'up');
  await inNs(ns, 'ip', 'link', 'set', 'lo', 'up');
}

describe('dataplane host NIOs (TAP, ethernet)', () => {
  let dp: DataplaneApi;
  let dir: string;
  let server: ChildProcess | undefined;
  const peers: Peer[] = [];
  const logged: string[] = [];
  const log = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };

  before(async () => {
    dp = await createDataplane({ log });
    dir = await mkdtemp(join(tmpdir(), 'emuctl-tap-'));
    await ip('netns', 'add', NS_A);
    await ip('netns', 'add', NS_B);
  });
  after(async () => {
    if (server?.exitCode === null) {
      server.kill();
      await once(server, 'exit');
    }
    delete process.env.EMUCTL_FAILPOINTS;
    for (const p of peers) p.close();
    await dp.close().catch(() => undefined);
    for (const ns of [NS_A, NS_B]) await ip('netns', 'delete', ns).catch(() => undefined);
    await removeInterfaces(PREFIX).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('carries real traffic both ways between two TAPs on a switch; capture, suspend and filters apply', async () => {
    await dp.createNode('sw', 'switch', [{ port: 0, type: 'access', vlan: 1 }, { port: 1, type: 'access', vlan: 1 }]);
    await dp.addNio('sw', 0, { kind: 'tap', ifname: TAP_A });
    await dp.addNio('sw', 1, { kind: 'tap', ifname: TAP_B });
    assert.deepEqual(await listInterfaces(PREFIX), [TAP_A, TAP_B], 'the dataplane created both TAPs');
    await plug(TAP_A, NS_A, IP_A);
    await plug(TAP_B, NS_B, IP_B);

    server = await startEchoServer();

    const pcap = join(dir, 'a.pcap');
    await dp.startCapture('sw', 0, pcap, PCAP_LINK_TYPES.DLT_EN10MB);
    assert.ok(await echoes(), 'A reaches B\'s echo server through the switch and back');
    await dp.stopCapture('sw', 0);
    const { stdout } = await run('tshark', ['-r', pcap, '-n', '-Y', 'arp || udp', '-T', 'fields', '-e', '_ws.col.Protocol', '-e', 'ip.src', '-e', 'udp.dstport']);
    const rows = stdout.trim().split('\n').filter(Boolean);
    assert.ok(rows.includes(`UDP\t${IP_A}\t${ECHO_PORT}`) && rows.some((r) => r.startsWith(`UDP\t${IP_B}\t`)), `capture holds probes and echoes:\n${stdout}`);
    assert.ok(rows.some((r) => r.startsWith('ARP')), `capture holds the ARP exchange:\n${stdout}`);

    const stats = await dp.stats('sw');
    for (const s of stats) assert.ok(s.framesIn >= 3 && s.framesOut >= 3, `port ${s.port} counted traffic: ${JSON.stringify(s)}`);
    assert.equal((await dp.macTable('sw')).length, 2, 'both TAPs\' MACs learned');

    await dp.updateNio('sw', 1, { suspend: true });
    assert.ok(await silent(), 'a suspended port stops the traffic');
    await dp.updateNio('sw', 1, { suspend: false });
    assert.ok(await echoes(), 'traffic resumes');

    await dp.updateNio('sw', 0, { filters: { packet_loss: [100] } });
    assert.ok(await silent(), 'packet_loss 100 stops the traffic');
    await dp.updateNio('sw', 0, { filters: {} });
    assert.ok(await echoes(), 'traffic resumes without filters');

    await dp.removeNio('sw', 0);
    await until(async () => !(await nsHasLink(NS_A, TAP_A)), 5000, 'the created TAP to disappear with its NIO');
    assert.ok(await nsHasLink(NS_B, TAP_B));
    await dp.deleteNode('sw');
    await until(async () => !(await nsHasLink(NS_B, TAP_B)), 5000, 'the TAP to disappear with its node');
  });

  it('attaches to an existing TAP and leaves it in place when the NIO goes', async () => {
    const name = `${PREFIX}p`;
    await ip('tuntap', 'add', 'dev', name, 'mode', 'tap');
    await dp.createNode('hub', 'hub', [{ port: 0, type: 'access', vlan: 1 }]);
    await dp.addNio('hub', 0, { kind: 'tap', ifname: name });
    const { stdout } = await ip('-o', 'link', 'show', name);
    assert.match(stdout, /[<,]UP[,>]/, 'the dataplane brought it up');
    await assert.rejects(dp.addNio('hub', 0, { kind: 'tap', ifname: name }), { name: 'ConflictError' });
    await dp.deleteNode('hub');
    assert.deepEqual(await listInterfaces(name), [name], 'a TAP made by someone else stays');
    assert.deepEqual(await removeInterfaces(PREFIX), [name], 'removeInterfaces deletes the leftovers by prefix');
    assert.equal(existsSync(`/sys/class/net/${name}`), false);
  });

  it('refuses bad names, non-TAP interfaces and a TAP already in use', async () => {
    await dp.createNode('bad', 'switch', [{ port: 0, type: 'access', vlan: 1 }, { port: 1, type: 'access', vlan: 1 }]);
    for (const ifname of ['', 'a-name-that-is-too-long', 'with space', 'a/b', '..']) {
      await assert.rejects(dp.addNio('bad', 0, { kind: 'tap', ifname }), { name: 'InvalidError' }, `name ${JSON.stringify(ifname)}`);
    }
    await assert.rejects(dp.addNio('bad', 0, { kind: 'tap', ifname: 'lo' }), { name: 'InvalidError', message: /not a TAP/ });
    await dp.addNio('bad', 0, { kind: 'tap', ifname: `${PREFIX}x` });
    await assert.rejects(dp.addNio('bad', 1, { kind: 'tap', ifname: `${PREFIX}x` }), { name: 'ConflictError', message: /EBUSY/ });
    await assert.rejects(listInterfaces('e'), { name: 'InvalidError' });
    await dp.deleteNode('bad');
    await until(async () => (await listInterfaces(PREFIX)).length === 0, 5000, 'the TAP to go with its node');
  });

  it('is rebuilt when the worker dies: the TAP is back, up, and carries frames both ways', async () => {
    const tap = `${PREFIX}r`;
    await dp.createNode('re', 'hub', [{ port: 0, type: 'access', vlan: 1 }, { port: 1, type: 'access', vlan: 1 }]);
    await dp.addNio('re', 0, { kind: 'tap', ifname: tap });
    const peer = await wire(dp, 're', 1);
    peers.push(peer);

    process.env.EMUCTL_FAILPOINTS = 'dataplane.worker.crash=1';
    await assert.rejects(dp.stats('re'), { name: 'UnavailableError' });
    await until(() => dp.stats('re').then(() => true, () => false), 10_000, 'the worker to come back');
    delete process.env.EMUCTL_FAILPOINTS;
    assert.match(logged.join('\n'), /dataplane worker restarted .* NIOs/);
    assert.deepEqual(await listInterfaces(tap), [tap], 'the TAP is back');

    await plug(tap, NS_A, IP_A);
    const tapMac = (await inNs(NS_A, 'cat', `/sys/class/net/${tap}/address`)).stdout.trim();
    peer.clear();
    // An echo request to A's address from an unknown 198.18.5.9: A's kernel must ask who has .9 before it can answer.
    peer.send(icmpEcho(tapMac, '02:00:00:00:00:09', [198, 18, 5, 9], [198, 18, 5, 1]));
    await until(() => peer.frames.some((f) => f.readUInt16BE(12) === 0x0806 && f.subarray(6, 12).equals(mac(tapMac)) && f.subarray(38, 42).equals(Buffer.from([198, 18, 5, 9]))), 5000, 'the ARP request from behind the rebuilt TAP');
    await dp.deleteNode('re');
  });

  it('an ethernet NIO (AF_PACKET on an existing interface) carries traffic to a TAP and leaves the interface in place', async () => {
    const tap = `${PREFIX}e`, veth = `${PREFIX}v`, peerEnd = `${PREFIX}w`;
    await ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', peerEnd);
    await ip('link', 'set', veth, 'up');
    await ip('link', 'set', peerEnd, 'netns', NS_B);
    await inNs(NS_B, 'ip', 'addr', 'add', `${IP_B}/24`, 'dev', peerEnd);
    await inNs(NS_B, 'ip', 'link', 'set', peerEnd, 'up');
    await dp.createNode('eth', 'switch', [{ port: 0, type: 'access', vlan: 1 }, { port: 1, type: 'access', vlan: 1 }]);
    await dp.addNio('eth', 0, { kind: 'tap', ifname: tap });
    await dp.addNio('eth', 1, { kind: 'ethernet', ifname: veth });
    await plug(tap, NS_A, IP_A);
    // ARP both ways: A's request goes out the TAP, through the switch and the packet socket to B; B's reply comes back.
    // (UDP from B would not do: veth hands a packet socket the frames of local senders with checksums left to offload.)
    const bMac = (await inNs(NS_B, 'cat', `/sys/class/net/${peerEnd}/address`)).stdout.trim();
    const resolvesB = async (): Promise<boolean> => {
      await inNs(NS_A, 'ip', 'neigh', 'flush', 'dev', tap);
      await inNs(NS_A, process.execPath, '-e', echoClient(1));
      const { stdout } = await inNs(NS_A, 'ip', 'neigh', 'show', IP_B, 'dev', tap);
      return stdout.includes(`lladdr ${bMac}`);
    };
    assert.ok(await resolvesB(), `A (TAP) resolves B (behind the veth): ${JSON.stringify(await dp.stats('eth'))}`);
    await dp.updateNio('eth', 1, { filters: { frequency_drop: [-1] } });
    assert.equal(await resolvesB(), false, 'frequency_drop -1 on the ethernet port stops the traffic');
    await dp.updateNio('eth', 1, { filters: {} });
    assert.ok(await resolvesB(), 'traffic resumes');

    await assert.rejects(dp.addNio('eth', 1, { kind: 'ethernet', ifname: veth }), { name: 'ConflictError' });
    await dp.removeNio('eth', 1);
    await assert.rejects(dp.addNio('eth', 1, { kind: 'ethernet', ifname: `${PREFIX}none` }), { name: 'InvalidError', message: /no such interface/ });
    await assert.rejects(dp.addNio('eth', 1, { kind: 'bogus' as 'tap', ifname: veth }), { name: 'InvalidError' });
    assert.deepEqual(await listInterfaces(veth), [veth], 'the interface stays when its NIO goes');
    await dp.deleteNode('eth');
    await ip('link', 'delete', veth);
  });
});
