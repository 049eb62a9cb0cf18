import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { BpfCompiler, parseDddOutput } from '../../src/daemon/dataplane/bpf-compile.js';
import { runBpf, validateBpf } from '../../src/daemon/dataplane/bpf-vm.js';
import { pcapGlobalHeader } from '../../src/daemon/dataplane/pcap-writer.js';
import { ConflictError, InvalidError } from '../../src/daemon/errors.js';
import { arpRequest, eth, icmpEcho, tagged } from './helpers.js';

const A = '02:00:00:00:00:01';
const B = '02:00:00:00:00:02';

function ipv4(proto: number, payload: Buffer, opts: { frag?: number; ttl?: number } = {}): Buffer {
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + payload.length, 2);
  ip.writeUInt16BE(opts.frag ?? 0, 6);
  ip[8] = opts.ttl ?? 64;
  ip[9] = proto;
  Buffer.from([10, 0, 0, 1]).copy(ip, 12);
  Buffer.from([10, 0, 0, 2]).copy(ip, 16);
  return Buffer.concat([ip, payload]);
}

function tcp(sport: number, dport: number, flags: number): Buffer {
  const t = Buffer.alloc(20);
  t.writeUInt16BE(sport, 0);
  t.writeUInt16BE(dport, 2);
  t[12] = 5 << 4;
  t[13] = flags;
  return t;
}

function udp(sport: number, dport: number, body = Buffer.alloc(8)): Buffer {
  const u = Buffer.alloc(8);
  u.writeUInt16BE(sport, 0);
  u.writeUInt16BE(dport, 2);
  u.writeUInt16BE(8 + body.length, 4);
  return Buffer.concat([u, body]);
}

function ipv6udp(dport: number): Buffer {
  const h = Buffer.alloc(40);
  h[0] = 0x60;
  h.writeUInt16BE(16, 4);
  h[6] = 17;
  h[7] = 64;
  h[23] = 1;
  h[39] = 2;
  return Buffer.concat([h, udp(1234, dport)]);
}

/** Frames covering the protocols and corner cases the expressions below look at. */
const CORPUS: Buffer[] = [
  icmpEcho(B, A, [10, 0, 0, 1], [10, 0, 0, 2]),
  arpRequest(A, [10, 0, 0, 1], [10, 0, 0, 2]),
  tagged(arpRequest(A, [10, 0, 0, 1], [10, 0, 0, 2]), 10),
  tagged(icmpEcho(B, A, [10, 0, 0, 1], [10, 0, 0, 2]), 20),
  eth(B, A, 0x0800, ipv4(6, tcp(40000, 80, 0x02))),
  eth(B, A, 0x0800, ipv4(6, tcp(80, 40000, 0x12), { ttl: 255 })),
  eth(B, A, 0x0800, ipv4(17, udp(5353, 53))),
  eth(B, A, 0x0800, ipv4(17, udp(1, 2), { frag: 0x2001 })),
  eth(B, A, 0x0800, ipv4(17, udp(7, 9, Buffer.alloc(1400, 0xab)))),
  eth(B, A, 0x86dd, ipv6udp(53)),
  eth('ff:ff:ff:ff:ff:ff', B, 0x88b5),
  eth(B, A, 0x0800).subarray(0, 20), // truncated IPv4: loads past the end must reject
  Buffer.from(eth(B, A, 0x0800).subarray(0, 14)),
];

const EXPRESSIONS = [
  'icmp', 'arp', 'vlan 10', 'vlan 20 and icmp', 'vlan', 'tcp port 80', 'tcp[tcpflags] & tcp-syn != 0',
  'tcp[tcpflags] == tcp-syn|tcp-ack', 'udp port 53', 'ip6 and udp', 'ip[6:2] & 0x1fff != 0', 'ip[6:2] & 0x1fff = 0 and ip[2:2] / 2 > 10',
  'ether src 02:00:00:00:00:01', 'ether broadcast', 'ether multicast', 'greater 100', 'less 61', 'len > ip[2:2]',
  'ip[2:2] - (ip[0]&0xf)*4 > 20', 'ip[8] + ip[9] = 65', 'ip[8] & ip[9] != 0', 'ip[8] ^ 0xff = 0', 'ether[0] % 3 = 1',
  'ip[2:2] * 3 > 100', 'ip[2:2] << 1 > 100', 'ip[2:2] >> 1 > 10', '-ip[8] = 0', 'ip[8] | 1 = 65', 'ip[9] > ip[8] - 60',
  'ip and ip[8] > 100', 'host 10.0.0.2', 'net 10.0.0.0/8 and not icmp', 'ether proto 0x88b5',
];

describe('bpf: libpcap programs run by our classic-BPF interpreter', () => {
  const compiler = new BpfCompiler();
  let dir: string;
  let pcap: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'emuctl-bpf-'));
    pcap = join(dir, 'corpus.pcap');
    // Each record's timestamp is its 1-based index, so tcpdump -tt tells which frames matched.
    const records = CORPUS.map((f, i) => {
      const h = Buffer.alloc(16);
      h.writeUInt32LE(i + 1, 0);
      h.writeUInt32LE(f.length, 8);
      h.writeUInt32LE(f.length, 12);
      return Buffer.concat([h, f]);
    });
    await writeFile(pcap, Buffer.concat([pcapGlobalHeader(1), ...records]));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const expr of EXPRESSIONS) {
    it(`matches what libpcap matches: ${expr}`, async () => {
      const prog = await compiler.compile(expr);
      assert.equal(validateBpf(prog), null);
      const ours = CORPUS.map((f, i) => (runBpf(prog, f) !== 0 ? i + 1 : 0)).filter(Boolean);
      const { stdout } = await promisify(execFile)('tcpdump', ['-r', pcap, '-nn', '-tt', '--', expr]);
      // One "<index>.000000 ..." line per matched frame (some frames add continuation lines).
      const theirs = stdout.split('\n').filter((l) => /^\d+\.\d{6} /.test(l)).map((l) => parseInt(l, 10));
      assert.deepEqual(ours, theirs);
    });
  }

  it('passes tcpdump\'s message for a bad expression as an InvalidError', async () => {
    await assert.rejects(compiler.compile('icmp and'), (e: Error) =>
      e instanceof InvalidError && /can't parse filter expression: syntax error/.test(e.message) && /icmp and/.test(e.message));
    await assert.rejects(compiler.compile('-w /tmp/x'), InvalidError, 'an expression is never taken for an option');
  });

  it('says how to install tcpdump when it is missing', async () => {
    const missing = new BpfCompiler('/nonexistent/tcpdump');
    await assert.rejects(missing.compile('icmp'), (e: Error) => e instanceof ConflictError && /apt-get install tcpdump/.test(e.message));
  });

  it('runs the instructions tcpdump seldom emits (txa, stx, ldx M, ld [x+k], ret a/x, ja, jge/jset x)', () => {
    const prog = (rows: number[][]) => new Uint32Array(rows.flat());
    const frame = Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    // X = 4; M[3] = X; X = M[3]; A = P[x+2 : 4] = 0x06070809; ret A
    assert.equal(runBpf(prog([[0x01, 0, 0, 4], [0x03, 0, 0, 3], [0x61, 0, 0, 3], [0x40, 0, 0, 2], [0x16, 0, 0, 0]]), frame), 0x06070809);
    // A = 9; X = A... txa after ldx: X = 7; A = X; ja +1; ret 0; ret A
    assert.equal(runBpf(prog([[0x01, 0, 0, 7], [0x87, 0, 0, 0], [0x05, 0, 0, 1], [0x06, 0, 0, 0], [0x16, 0, 0, 0]]), frame), 7);
    // A = 5, X = 5: jge x → ret X; jset x
    assert.equal(runBpf(prog([[0x00, 0, 0, 5], [0x07, 0, 0, 0], [0x3d, 0, 1, 0], [0x0e, 0, 0, 0], [0x06, 0, 0, 0]]), frame), 5);
    assert.equal(runBpf(prog([[0x00, 0, 0, 4], [0x01, 0, 0, 2], [0x4d, 0, 1, 0], [0x06, 0, 0, 1], [0x06, 0, 0, 9]]), frame), 9);
    // 32-bit unsigned wrap: 0 - 1 = 0xffffffff; division by X = 0 rejects
    assert.equal(runBpf(prog([[0x00, 0, 0, 0], [0x14, 0, 0, 1], [0x16, 0, 0, 0]]), frame), 0xffffffff);
    assert.equal(runBpf(prog([[0x00, 0, 0, 8], [0x01, 0, 0, 0], [0x3c, 0, 0, 0], [0x06, 0, 0, 1]]), frame), 0);
    // ld [x+k] past the end rejects
    assert.equal(runBpf(prog([[0x01, 0, 0, 14], [0x48, 0, 0, 1], [0x06, 0, 0, 1]]), frame), 0);
  });

  it('refuses malformed programs', () => {
    const prog = (rows: number[][]) => new Uint32Array(rows.flat());
    assert.match(validateBpf(prog([[0x15, 5, 0, 1], [0x06, 0, 0, 0]]))!, /jump out of range/);
    assert.match(validateBpf(prog([[0x05, 0, 0, 1], [0x06, 0, 0, 0]]))!, /jump out of range/);
    assert.match(validateBpf(prog([[0x00, 0, 0, 1]]))!, /return/);
    assert.match(validateBpf(prog([[0x34, 0, 0, 0], [0x06, 0, 0, 0]]))!, /division by zero/);
    assert.match(validateBpf(prog([[0x60, 0, 0, 16], [0x06, 0, 0, 0]]))!, /memory index/);
    assert.match(validateBpf(prog([[0xff, 0, 0, 0], [0x06, 0, 0, 0]]))!, /unknown opcode/);
    assert.throws(() => parseDddOutput('2\n6 0 0 1\n'), /unexpected/);
  });
});
