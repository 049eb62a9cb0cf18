// QEMU benchmark (issue 10), with the test guest under TCG, all in one run on one daemon:
//  1. time from `node start` to the first frame from the guest, and to the first ping reply
//     (read from a capture of the guest's port: pcap timestamps against the start call; an echo
//     request goes to the guest every 20 ms from the start on);
//  2. frames/s through switch → X → back: ICMP echo by the guest and by a VPCS (the baseline),
//     and UDP forwarded by the guest kernel (ip_forward on) from one switch VLAN to another;
//  3. the daemon's RSS with no node, with 20 QEMU nodes defined (not started), with 5 running.
// Usage: npx tsc -p tsconfig.json && node dist/bench/qemu/run.js [--seconds 3] [--rate 20000]
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { connectVpcsConsole, setIp } from '../../src/client/vpcs-console.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { GuestShell, guestCmdline, testGuest } from '../../test/helpers/qemu-guest.js';
import { numberArg } from '../lib/args.js';

const SECONDS = numberArg('seconds', 3);
const RATE = numberArg('rate', 20000);
const ENV = { EMUCTL_UDP_PORT_RANGE: '34000-34399', EMUCTL_CONSOLE_PORT_RANGE: '27600-27699', EMUCTL_QEMU_ACCEL: 'tcg' };
const HOST_MAC = '02:00:00:00:00:01';
const SINK_MAC = '02:00:00:00:00:02';

let daemon: TestDaemon | undefined;

const mac = (s: string) => Buffer.from(s.split(':').map((h) => parseInt(h, 16)));
const ip = (s: string) => Buffer.from(s.split('.').map(Number));
function checksum(buf: Buffer): number {
  let sum = 0;
  for (let i = 0; i < buf.length; i += 2) sum += (buf[i] << 8) + (buf[i + 1] ?? 0);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return ~sum & 0xffff;
}
/** An Ethernet/IPv4 frame with a valid header checksum around `payload` (protocol 1 ICMP, 17 UDP). */
function ipv4Frame(dstMac: string, src: string, dst: string, protocol: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(20);
  h[0] = 0x45;
  h.writeUInt16BE(20 + payload.length, 2);
  h[8] = 64;
  h[9] = protocol;
  ip(src).copy(h, 12);
  ip(dst).copy(h, 16);
  h.writeUInt16BE(checksum(h), 10);
  return Buffer.concat([mac(dstMac), mac(HOST_MAC), Buffer.from([0x08, 0x00]), h, payload]);
}
function icmpEcho(seq: number): Buffer {
  const p = Buffer.alloc(8 + 18);
  p[0] = 8;
  p.writeUInt16BE(0x1234, 4);
  p.writeUInt16BE(seq & 0xffff, 6);
  p.writeUInt16BE(checksum(p), 2);
  return p;
}
function udpDatagram(): Buffer {
  const p = Buffer.alloc(8 + 18);
  p.writeUInt16BE(40000, 0);
  p.writeUInt16BE(9, 2);
  p.writeUInt16BE(p.length, 4);
  return p;
}

/** A host on a switch port: a UDP socket the port's NIO points at, answering ARP for its address. */
async function hostSocket(address: string): Promise<{ socket: dgram.Socket; port: number; received: () => number; reset: () => void }> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  let count = 0;
  socket.on('message', (frame, rinfo) => {
    if (frame.readUInt16BE(12) === 0x0806 && frame.readUInt16BE(20) === 1 && frame.subarray(38, 42).equals(ip(address))) {
      const reply = Buffer.concat([frame.subarray(6, 12), mac(HOST_MAC), Buffer.from([0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 2]), mac(HOST_MAC), ip(address), frame.subarray(22, 28), frame.subarray(28, 32)]);
      socket.send(reply, rinfo.port, '127.0.0.1');
    } else count++;
  });
  return { socket, port: socket.address().port, received: () => count, reset: () => (count = 0) };
}

/** Offers `RATE` frames/s for SECONDS; returns frames/s that came back on `back`. */
async function offer(target: dgram.Socket, port: number, make: (i: number) => Buffer, back: { received: () => number; reset: () => void }): Promise<{ sent: number; back: number }> {
  back.reset();
  const start = Date.now();
  let sent = 0;
  while (Date.now() - start < SECONDS * 1000) {
    const due = Math.floor(((Date.now() - start) / 1000) * RATE);
    while (sent < due) target.send(make(sent++), port, '127.0.0.1');
    await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, 500));
  return { sent: sent / SECONDS, back: back.received() / SECONDS };
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

async function main(): Promise<void> {
  const guest = await testGuest();
  daemon = await startTestDaemon({ env: ENV });
  const d = daemon;
  const rss0 = rssKb(d.pid);
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await d.api(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  for (const [file, name] of [[guest.kernel, 'vmlinuz'], [guest.initrd, 'initrd.img']]) {
    const r = await fetch(`${d.url}/v2/compute/qemu/images/${name}`, { method: 'POST', body: readFileSync(file) });
    if (r.status !== 204) throw new Error(`upload ${name}: ${r.status}`);
  }
  const p = (await call('POST', '/v2/projects', { name: 'bench-qemu' })).project_id;
  const qemu = (name: string, addresses: string[], adapters = 1, forward = false) =>
    call('POST', `/v2/projects/${p}/nodes`, { name, node_type: 'qemu', properties: { kernel_image: 'vmlinuz', initrd: 'initrd.img', ram: 96, adapters, adapter_type: 'virtio-net-pci', kernel_command_line: guestCmdline(addresses, forward) } });
  const ports_mapping = [0, 1, 2, 3, 4, 5].map((n) => ({ name: `Ethernet${n}`, port_number: n, type: 'access', vlan: n === 2 || n === 3 ? 2 : 1 }));
  const sw = await call('POST', `/v2/projects/${p}/nodes`, { name: 'SW1', node_type: 'ethernet_switch', properties: { ports_mapping } });
  const r1 = await qemu('R1', ['10.0.1.1/24', '10.0.2.1/24'], 2, true);
  const pc = await call('POST', `/v2/projects/${p}/nodes`, { name: 'PC1', node_type: 'vpcs' });
  const link = (a: any, aAdapter: number, b: any, bPort: number) => call('POST', `/v2/projects/${p}/links`, { nodes: [{ node_id: a.node_id, adapter_number: aAdapter, port_number: 0 }, { node_id: b.node_id, adapter_number: 0, port_number: bPort }] });
  await link(r1, 0, sw, 1);
  await link(r1, 1, sw, 2);
  await link(pc, 0, sw, 4);
  const host = await hostSocket('10.0.1.100');
  const sink = await hostSocket('10.0.2.100');
  const nio = (port: number, lport: number) => call('POST', `/v2/compute/projects/${p}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/${port}/nio`, { type: 'nio_udp', lport, rhost: '127.0.0.1', rport: lport === 34390 ? host.port : sink.port });
  await nio(0, 34390);
  await nio(3, 34391);

  // 1. Boot: capture the guest's eth0, ping it every 20 ms from the host socket, start it.
  await call('POST', `/v2/projects/${p}/nodes/${pc.node_id}/start`, {});
  const vpcs = await connectVpcsConsole('127.0.0.1', (await call('GET', `/v2/projects/${p}/nodes/${pc.node_id}`)).console);
  await setIp(vpcs, '10.0.1.50/24');
  const capture = await call('POST', `/v2/compute/projects/${p}/qemu/nodes/${r1.node_id}/adapters/0/ports/0/start_capture`, { capture_file_name: 'boot.pcap' });
  let seq = 0;
  const pinger = setInterval(() => host.socket.send(ipv4Frame(r1.ports[0].mac_address, '10.0.1.100', '10.0.1.1', 1, icmpEcho(seq++)), 34390, '127.0.0.1'), 20);
  const t0 = Date.now();
  await call('POST', `/v2/projects/${p}/nodes/${r1.node_id}/start`, {});
  const started = Date.now() - t0;
  const guestMac = mac(r1.ports[0].mac_address);
  let firstFrame: number | undefined;
  let firstReply: number | undefined;
  while ((firstFrame === undefined || firstReply === undefined) && Date.now() - t0 < 60_000) {
    const pcap = readFileSync(capture.pcap_file_path);
    for (let off = 24; off + 16 <= pcap.length; ) {
      const len = pcap.readUInt32LE(off + 8);
      const at = pcap.readUInt32LE(off) * 1000 + pcap.readUInt32LE(off + 4) / 1000 - t0;
      const frame = pcap.subarray(off + 16, off + 16 + len);
      if (frame.subarray(6, 12).equals(guestMac)) {
        firstFrame ??= at;
        if (frame.readUInt16BE(12) === 0x0800 && frame[23] === 1 && frame[34] === 0) firstReply ??= at;
      }
      off += 16 + len;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  clearInterval(pinger);

  // 2. Frames/s: ICMP echo by the guest and by the VPCS, UDP forwarded by the guest.
  const shell = await GuestShell.connect('127.0.0.1', r1.console);
  await shell.run(`ip neigh replace 10.0.1.100 lladdr ${HOST_MAC} dev eth0 && ip neigh replace 10.0.2.100 lladdr ${SINK_MAC} dev eth1`);
  shell.close();
  const echoGuest = await offer(host.socket, 34390, (i) => ipv4Frame(r1.ports[0].mac_address, '10.0.1.100', '10.0.1.1', 1, icmpEcho(i)), host);
  const pcMac = (await call('GET', `/v2/projects/${p}/nodes/${pc.node_id}`)).properties.mac_address;
  await vpcs.run('ping 10.0.1.100 -c 1').catch(() => ''); // PC1 learns the host's MAC
  const echoVpcs = await offer(host.socket, 34390, (i) => ipv4Frame(pcMac, '10.0.1.100', '10.0.1.50', 1, icmpEcho(i)), host);
  const forwarded = await offer(host.socket, 34390, () => ipv4Frame(r1.ports[0].mac_address, '10.0.1.100', '10.0.2.100', 17, udpDatagram()), sink);
  vpcs.close();

  // 3. RSS: 20 QEMU nodes defined, then 5 of them running.
  await call('POST', `/v2/projects/${p}/nodes/stop`, {});
  const p2 = (await call('POST', '/v2/projects', { name: 'bench-rss' })).project_id;
  const defined: any[] = [];
  for (let i = 0; i < 20; i++) defined.push(await call('POST', `/v2/projects/${p2}/nodes`, { name: `Q${i}`, node_type: 'qemu', properties: { kernel_image: 'vmlinuz', initrd: 'initrd.img', ram: 64, kernel_command_line: guestCmdline([]) } }));
  const rss20 = rssKb(d.pid);
  for (const n of defined.slice(0, 5)) await call('POST', `/v2/projects/${p2}/nodes/${n.node_id}/start`, {});
  const rss5 = rssKb(d.pid);

  const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
  console.log(`machine: ${process.env.BENCH_MACHINE ?? ''} ${SECONDS} s per rate measure, offered ${k(RATE)} frames/s, TCG\n`);
  console.log('| what | measured | baseline in the same run |');
  console.log('|---|---|---|');
  console.log(`| node start API call returns (QEMU spawned, QMP and console up) | ${started} ms | |`);
  console.log(`| node start → first frame from the guest | ${firstFrame?.toFixed(0) ?? 'none'} ms | |`);
  console.log(`| node start → first ping reply from the guest | ${firstReply?.toFixed(0) ?? 'none'} ms | |`);
  console.log(`| ICMP echo: switch → QEMU guest → back | ${k(echoGuest.back)} replies/s | VPCS ${k(echoVpcs.back)} replies/s (${(echoGuest.back / Math.max(echoVpcs.back, 1)).toFixed(2)}×) |`);
  console.log(`| UDP forwarded by the guest kernel, VLAN 1 → guest → VLAN 2 | ${k(forwarded.back)} frames/s | VPCS echo above |`);
  console.log(`| daemon RSS, 20 QEMU nodes defined | ${(rss20 / 1024).toFixed(1)} MB | no node: ${(rss0 / 1024).toFixed(1)} MB (+${((rss20 - rss0) / 1024).toFixed(1)} MB) |`);
  console.log(`| daemon RSS, 5 of them running | ${(rss5 / 1024).toFixed(1)} MB | (+${((rss5 - rss20) / 1024).toFixed(1)} MB over defined) |`);
  host.socket.close();
  sink.socket.close();
}

try {
  await main();
} finally {
  if (daemon) {
    await daemon.stop();
    removeHome(daemon.home);
  }
}
