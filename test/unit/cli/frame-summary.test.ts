import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { decodeFrame, formatIpv6 } from '../../../src/render/frame-decode.js';
import { clockTime, frameJson, frameLine } from '../../../src/render/frame-summary.js';
import { arp, BROADCAST, echo, eth, ipv4, ipv6, MAC1, MAC2, neighborSolicitation, pcapHeader, pcapRecord, tcp, udp } from './frames.js';

const ICMP_REQUEST = eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 1, echo(8, 0x1234, 1)));

/** The frames every protocol test uses, with the summary each must give. */
const CASES: Array<{ name: string; frame: Buffer; protocol: string; src: string; dst: string; info: string; tshark: string }> = [
  { name: 'ICMP echo request', frame: ICMP_REQUEST, protocol: 'ICMP', src: '10.0.0.1', dst: '10.0.0.2', info: 'echo request, id 4660, seq 1, length 56', tshark: 'ICMP' },
  { name: 'ICMP echo reply', frame: eth(0x0800, ipv4('10.0.0.2', '10.0.0.1', 1, echo(0, 0x1234, 3))), protocol: 'ICMP', src: '10.0.0.2', dst: '10.0.0.1', info: 'echo reply, id 4660, seq 3, length 56', tshark: 'ICMP' },
  { name: 'ARP who-has', frame: eth(0x0806, arp(1, MAC1, '10.0.0.1', '00:00:00:00:00:00', '10.0.0.2'), { dst: BROADCAST }), protocol: 'ARP', src: MAC1, dst: BROADCAST, info: 'who-has 10.0.0.2 tell 10.0.0.1', tshark: 'ARP' },
  { name: 'ARP is-at', frame: eth(0x0806, arp(2, MAC2, '10.0.0.2', MAC1, '10.0.0.1'), { src: MAC2, dst: MAC1 }), protocol: 'ARP', src: MAC2, dst: MAC1, info: `10.0.0.2 is-at ${MAC2}`, tshark: 'ARP' },
  { name: 'gratuitous ARP', frame: eth(0x0806, arp(1, MAC1, '10.0.0.1', '00:00:00:00:00:00', '10.0.0.1'), { dst: BROADCAST }), protocol: 'ARP', src: MAC1, dst: BROADCAST, info: 'who-has 10.0.0.1 tell 10.0.0.1 (gratuitous)', tshark: 'ARP' },
  { name: 'TCP SYN', frame: eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 6, tcp(40000, 80, 0x02, { seq: 100 }))), protocol: 'TCP', src: '10.0.0.1:40000', dst: '10.0.0.2:80', info: '[S] seq 100, win 64240, length 0', tshark: 'TCP' },
  { name: 'TCP SYN-ACK', frame: eth(0x0800, ipv4('10.0.0.2', '10.0.0.1', 6, tcp(80, 40000, 0x12, { seq: 7, ack: 101 }))), protocol: 'TCP', src: '10.0.0.2:80', dst: '10.0.0.1:40000', info: '[S.] seq 7, ack 101, win 64240, length 0', tshark: 'TCP' },
  { name: 'TCP PSH-ACK with data', frame: eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 6, tcp(40000, 80, 0x18, { seq: 101, ack: 8, data: Buffer.from('GET / HTTP/1.0\r\n\r\n') }))), protocol: 'TCP', src: '10.0.0.1:40000', dst: '10.0.0.2:80', info: '[P.] seq 101, ack 8, win 64240, length 18', tshark: 'HTTP' },
  { name: 'TCP FIN-ACK', frame: eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 6, tcp(40000, 22, 0x11))), protocol: 'TCP', src: '10.0.0.1:40000', dst: '10.0.0.2:22', info: '[F.] seq 1000, ack 0, win 64240, length 0', tshark: 'TCP' },
  { name: 'TCP RST', frame: eth(0x0800, ipv4('10.0.0.2', '10.0.0.1', 6, tcp(22, 40000, 0x04))), protocol: 'TCP', src: '10.0.0.2:22', dst: '10.0.0.1:40000', info: '[R] seq 1000, win 64240, length 0', tshark: 'TCP' },
  { name: 'UDP', frame: eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 17, udp(54321, 54322, Buffer.alloc(12)))), protocol: 'UDP', src: '10.0.0.1:54321', dst: '10.0.0.2:54322', info: 'length 12', tshark: 'UDP' },
  { name: 'IPv6 UDP', frame: eth(0x86dd, ipv6('2001:db8::1', '2001:db8::2', 17, udp(5000, 6000, Buffer.alloc(4)))), protocol: 'UDP', src: '[2001:db8::1]:5000', dst: '[2001:db8::2]:6000', info: 'length 4', tshark: 'UDP' },
  { name: 'ICMPv6 echo request', frame: eth(0x86dd, ipv6('fe80::250:79ff:fe66:6800', 'fe80::1', 58, echo(128, 7, 9, 8))), protocol: 'ICMPv6', src: 'fe80::250:79ff:fe66:6800', dst: 'fe80::1', info: 'echo request, id 7, seq 9, length 8', tshark: 'ICMPv6' },
  { name: 'ICMPv6 echo reply', frame: eth(0x86dd, ipv6('fe80::1', 'fe80::2', 58, echo(129, 7, 9, 8))), protocol: 'ICMPv6', src: 'fe80::1', dst: 'fe80::2', info: 'echo reply, id 7, seq 9, length 8', tshark: 'ICMPv6' },
  { name: 'ICMPv6 neighbor solicitation', frame: eth(0x86dd, ipv6('::', 'ff02::1:ff00:2', 58, neighborSolicitation('2001:db8::2'), 255)), protocol: 'ICMPv6', src: '::', dst: 'ff02::1:ff00:2', info: 'neighbor solicitation, who has 2001:db8::2', tshark: 'ICMPv6' },
  { name: 'IPv6 hop-by-hop then ICMPv6', frame: eth(0x86dd, ipv6('fe80::1', 'ff02::16', 0, Buffer.concat([Buffer.from([58, 0, 5, 2, 0, 0, 1, 0]), Buffer.from([143, 0, 0, 0, 0, 0, 0, 0])]), 1)), protocol: 'ICMPv6', src: 'fe80::1', dst: 'ff02::16', info: 'multicast listener report v2', tshark: 'ICMPv6' },
  { name: 'unknown EtherType', frame: eth(0x88b5, Buffer.alloc(46)), protocol: 'ethertype 0x88b5', src: MAC1, dst: MAC2, info: 'length 46', tshark: '' },
];

describe('frame decoder: one summary per protocol', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const frame = decodeFrame(c.frame);
      assert.deepEqual({ protocol: frame.protocol, src: frame.src, dst: frame.dst, info: frame.info }, { protocol: c.protocol, src: c.src, dst: c.dst, info: c.info });
      assert.equal(frame.truncated, false);
      assert.deepEqual(frame.vlans, []);
    });
  }

  it('802.1Q: one tag, and stacked tags (802.1ad outer) listed outermost first', () => {
    const payload = ipv4('10.0.0.1', '10.0.0.2', 1, echo(8, 1, 2));
    const one = decodeFrame(eth(0x0800, payload, { vlans: [10] }));
    assert.deepEqual([one.protocol, one.info, one.vlans], ['ICMP', 'echo request, id 1, seq 2, length 56', [10]]);
    const stacked = decodeFrame(eth(0x0800, payload, { vlans: [[0x88a8, 100], [0x8100, 0x2000 | 10]] }));
    assert.deepEqual([stacked.protocol, stacked.vlans], ['ICMP', [100, 10]], 'PCP bits are not part of the VLAN ID');
    const arpTagged = decodeFrame(eth(0x0806, arp(1, MAC1, '10.0.0.1', '00:00:00:00:00:00', '10.0.0.2'), { vlans: [[0x9100, 5], 7] }));
    assert.deepEqual([arpTagged.protocol, arpTagged.vlans], ['ARP', [5, 7]]);
  });

  it('IPv4 total length bounds the payload: Ethernet padding is not TCP data', () => {
    const frame = decodeFrame(eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 6, tcp(1, 2, 0x10))));
    assert.match(frame.info, /length 0$/);
  });

  it('IPv4 fragments after the first are not read as a transport header', () => {
    const frame = decodeFrame(eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 1, Buffer.alloc(40), { fragment: 185 })));
    assert.deepEqual([frame.protocol, frame.info], ['IPv4', 'fragment offset 1480, proto 1, length 60']);
  });

  it('802.3 frames with an LLC header; STP BPDUs by their SAPs', () => {
    const bpdu = Buffer.concat([Buffer.from('0180c2000000', 'hex'), Buffer.from(MAC1.replace(/:/g, ''), 'hex'), Buffer.from([0, 38, 0x42, 0x42, 0x03]), Buffer.alloc(35)]);
    assert.deepEqual([decodeFrame(bpdu).protocol, decodeFrame(bpdu).info], ['STP', 'dsap 0x42 ssap 0x42, length 38']);
  });

  it('fields for --json: ICMP type/code/id/seq, ports and flags, TTL, ARP op', () => {
    assert.deepEqual(decodeFrame(ICMP_REQUEST).fields, { ttl: 64, icmp_type: 8, icmp_code: 0, icmp_id: 0x1234, icmp_seq: 1 });
    assert.deepEqual(decodeFrame(CASES[6].frame).fields, { ttl: 64, src_port: 80, dst_port: 40000, tcp_flags: 'S.' });
    assert.deepEqual(decodeFrame(CASES[2].frame).fields, { arp_op: 1 });
  });
});

describe('frame decoder: truncated frames', () => {
  it('decodes as far as the bytes go and marks the frame truncated, at every cut', () => {
    for (const c of CASES) {
      for (let cut = 0; cut < c.frame.length; cut++) {
        const frame = decodeFrame(c.frame.subarray(0, cut));
        assert.equal(typeof frame.info, 'string', `${c.name} cut at ${cut}`);
        if (cut < 14) assert.deepEqual([frame.protocol, frame.truncated], ['Ethernet', true], `${c.name} cut at ${cut}`);
      }
    }
  });

  it('an ICMP header cut short keeps the addresses and says so', () => {
    const frame = decodeFrame(ICMP_REQUEST.subarray(0, 14 + 20 + 4));
    assert.deepEqual([frame.protocol, frame.src, frame.dst, frame.info, frame.truncated], ['ICMP', '10.0.0.1', '10.0.0.2', '[truncated]', true]);
  });

  it('an IPv4 header shorter than its IHL is truncated, not misread', () => {
    const frame = decodeFrame(ICMP_REQUEST.subarray(0, 14 + 12));
    assert.deepEqual([frame.protocol, frame.truncated], ['IPv4', true]);
  });
});

describe('frame decoder: other link types', () => {
  const packet = ipv4('192.168.1.1', '192.168.1.2', 1, echo(8, 1, 1));
  it('PPP (DLT_PPP_SERIAL) and Cisco HDLC carrying IPv4', () => {
    assert.equal(decodeFrame(Buffer.concat([Buffer.from([0xff, 0x03, 0x00, 0x21]), packet]), 50).info, 'echo request, id 1, seq 1, length 56');
    const hdlc = decodeFrame(Buffer.concat([Buffer.from([0x0f, 0x00, 0x08, 0x00]), packet]), 104);
    assert.deepEqual([hdlc.protocol, hdlc.src, hdlc.dst], ['ICMP', '192.168.1.1', '192.168.1.2']);
  });
  it('an unknown link type: its number and the length', () => {
    assert.deepEqual([decodeFrame(Buffer.alloc(30), 107).protocol, decodeFrame(Buffer.alloc(30), 107).info], ['linktype 107', 'length 30']);
  });
});

describe('formatIpv6', () => {
  it('compresses the longest run of zero groups, and only runs of two or more', () => {
    const hex = (s: string) => Buffer.from(s, 'hex');
    assert.equal(formatIpv6(hex('20010db8000000000000000000000001')), '2001:db8::1');
    assert.equal(formatIpv6(hex('00000000000000000000000000000000')), '::');
    assert.equal(formatIpv6(hex('20010db8000100000001000000000001')), '2001:db8:1:0:1::1');
    assert.equal(formatIpv6(hex('20010db8000000010001000100010001')), '2001:db8:0:1:1:1:1:1');
  });
});

describe('summary line and JSON object', () => {
  const record = { seconds: 1_700_000_000, nanos: 123_456_000, originalLength: ICMP_REQUEST.length, data: ICMP_REQUEST };

  it('frameLine: time, src > dst, protocol, info, like tcpdump', () => {
    assert.equal(frameLine(record, 1), `${clockTime(record)} 10.0.0.1 > 10.0.0.2 ICMP echo request, id 4660, seq 1, length 56`);
    assert.match(clockTime(record), /^\d\d:\d\d:\d\d\.123456$/);
    assert.match(clockTime({ ...record, nanos: 5 }, true), /\.000000005$/);
    const tagged = { ...record, data: eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 1, echo(8, 1, 1)), { vlans: [100, 10] }) };
    assert.match(frameLine(tagged, 1), /ICMP echo request, id 1, seq 1, length 56 \(vlan 100, 10\)$/);
  });

  it('frameJson: the summary plus time, lengths, MACs and protocol fields', () => {
    assert.deepEqual(frameJson(record, 1, 3), {
      number: 3, time: '2023-11-14T22:13:20.123456Z', timestamp: 1_700_000_000.123456, length: 98, captured_length: 98,
      protocol: 'ICMP', src: '10.0.0.1', dst: '10.0.0.2', info: 'echo request, id 4660, seq 1, length 56',
      eth_src: MAC1, eth_dst: MAC2, vlans: [], truncated: false, ttl: 64, icmp_type: 8, icmp_code: 0, icmp_id: 4660, icmp_seq: 1,
    });
    assert.equal(frameJson({ ...record, originalLength: 200 }, 1, 1).truncated, true, 'a snapped record is truncated');
  });
});

describe('the hand-built frames are what tshark also sees', () => {
  it('tshark decodes each test frame as the same protocol and addresses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emuctl-frames-'));
    try {
      const file = join(dir, 'frames.pcap');
      writeFileSync(file, Buffer.concat([pcapHeader(), ...CASES.map((c, i) => pcapRecord(c.frame, 1000 + i, 0))]));
      const { stdout } = await promisify(execFile)('tshark', ['-r', file, '-T', 'fields', '-e', '_ws.col.Protocol', '-e', 'ip.src', '-e', 'ipv6.src', '-e', 'icmp.seq', '-e', 'tcp.srcport']);
      const lines = stdout.trimEnd().split('\n');
      assert.equal(lines.length, CASES.length);
      CASES.forEach((c, i) => {
        const [protocol, ip4src, ip6src] = lines[i].split('\t');
        if (c.tshark) assert.equal(protocol, c.tshark, c.name);
        const src = ip4src || ip6src;
        if (src) assert.ok(c.src === src || c.src.startsWith(`${src}:`) || c.src.startsWith(`[${src}]:`), `${c.name}: ${src} vs ${c.src}`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('formatBytes', () => {
  it('bytes below 1 kB, then decimal units with one decimal below 10', async () => {
    const { formatBytes } = await import('../../../src/render/progress.js');
    assert.deepEqual([0, 999, 1000, 1500, 12_345, 999_999, 1_000_000, 2.5e9].map(formatBytes), ['0 B', '999 B', '1.0 kB', '1.5 kB', '12 kB', '1.0 MB', '1.0 MB', '2.5 GB']);
  });
});
