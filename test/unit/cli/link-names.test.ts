// Link and link-end naming (client/links.ts), filter merging and summaries, the console's telnet filter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AmbiguousError, NoMatchError, UsageError, exitCodeFor } from '../../../src/cli/errors.js';
import { findLink, linkName, parseEndArgument, parseEndSpec, resolveEnd, type Link } from '../../../src/client/links.js';
import type { Node, NodePort } from '../../../src/client/nodes.js';
import { mergeFilters } from '../../../src/commands/link/filter-values.js';
import { endsCell, filtersSummary } from '../../../src/commands/link/render.js';
import { TelnetFilter } from '../../../src/commands/node/console-session.js';

const port = (n: number): NodePort => ({ name: `Ethernet${n}`, short_name: `e${n}`, adapter_number: 0, port_number: n, link_type: 'ethernet' });
const node = (name: string, node_id: string, ports = 1): Node => ({
  name, node_id, project_id: 'p', compute_id: 'local', node_type: ports > 1 ? 'ethernet_switch' : 'vpcs', status: 'started',
  console: null, console_type: 'none', console_host: '127.0.0.1', properties: {}, ports: Array.from({ length: ports }, (_, i) => port(i)),
});
const link = (link_id: string, [a, pa]: [Node, number], [b, pb]: [Node, number]): Link => ({
  link_id, project_id: 'p', link_type: 'ethernet', capturing: false, capture_file_name: null, capture_file_path: null,
  capture_compute_id: null, filters: {}, suspend: false,
  nodes: [{ node_id: a.node_id, adapter_number: 0, port_number: pa }, { node_id: b.node_id, adapter_number: 0, port_number: pb }],
});

const pc1 = node('PC1', '11111111-0000-4000-8000-000000000001');
const pc2 = node('PC2', '22222222-0000-4000-8000-000000000002');
const sw1 = node('SW1', '33333333-0000-4000-8000-000000000003', 8);
const dashed = node('core-sw', '44444444-0000-4000-8000-000000000004', 8);
const nodes = [pc1, pc2, sw1, dashed];
const l1 = link('aaaa1111-0000-4000-8000-000000000001', [pc1, 0], [sw1, 0]);
const l2 = link('aaaa2222-0000-4000-8000-000000000002', [pc2, 0], [sw1, 1]);
const l3 = link('bbbb3333-0000-4000-8000-000000000003', [sw1, 7], [dashed, 3]);
const links = [l1, l2, l3];
const find = (ref: string) => findLink(links, nodes, ref);

describe('parseEndSpec: NODE:ADAPTER/PORT, NODE:PORT, NODE:PORT-NAME', () => {
  it('numbers: ADAPTER/PORT, or PORT meaning adapter 0', () => {
    assert.deepEqual(parseEndSpec('PC1:0/0'), { node: 'PC1', port: { adapter: 0, port: 0 } });
    assert.deepEqual(parseEndSpec('SW1:3'), { node: 'SW1', port: { adapter: 0, port: 3 } });
    assert.deepEqual(parseEndSpec('R1:1/2'), { node: 'R1', port: { adapter: 1, port: 2 } });
  });

  it('anything else after the last colon is a port name; the node part may hold colons and dashes', () => {
    assert.deepEqual(parseEndSpec('SW1:Ethernet3'), { node: 'SW1', port: { name: 'Ethernet3' } });
    assert.deepEqual(parseEndSpec('a:b-c:0'), { node: 'a:b-c', port: { adapter: 0, port: 0 } });
  });

  it('no node or no port: not an end; parseEndArgument makes that a usage error (exit 2)', () => {
    for (const text of ['PC1', ':0', 'PC1:', '']) assert.equal(parseEndSpec(text), undefined, text);
    assert.throws(() => parseEndArgument('PC1'), (err) => err instanceof UsageError && exitCodeFor(err) === 2
      && /"PC1" is not a link end: expected NODE:ADAPTER\/PORT, NODE:PORT or NODE:PORT-NAME/.test(err.message));
  });
});

describe('resolveEnd: names vs numbers', () => {
  it('a port number, ADAPTER/PORT, a port name and a short name all name the same port', () => {
    for (const text of ['SW1:3', 'SW1:0/3', 'SW1:Ethernet3', 'SW1:e3', 'SW1:ethernet3']) {
      const end = resolveEnd(nodes, parseEndSpec(text)!);
      assert.deepEqual([end.node.name, end.adapter_number, end.port_number], ['SW1', 0, 3], text);
    }
  });

  it('a node by UUID prefix; numbered ports are left to the server to check', () => {
    const end = resolveEnd(nodes, parseEndSpec('3333:0/42')!);
    assert.deepEqual([end.node.name, end.port_number], ['SW1', 42]);
  });

  it('an unknown port name lists the ports; an unknown node lists the nodes (exit 1)', () => {
    assert.throws(() => resolveEnd(nodes, parseEndSpec('PC1:Ethernet9')!),
      (err) => err instanceof NoMatchError && err.message === 'node PC1 has no port named "Ethernet9"; its ports: Ethernet0 (0/0)');
    assert.throws(() => resolveEnd(nodes, parseEndSpec('PC9:0')!),
      (err) => err instanceof NoMatchError && exitCodeFor(err) === 1 && /^no node matches "PC9"; known: PC1 /.test(err.message));
  });
});

describe('findLink: UUID, prefix, or its ends', () => {
  it('by full UUID and by unique UUID prefix', () => {
    assert.equal(find(l2.link_id), l2);
    assert.equal(find('aaaa2'), l2);
    assert.equal(find('BBBB'), l3);
  });

  it('an ambiguous prefix lists the candidates by their ends', () => {
    assert.throws(() => find('aaaa'), (err) => err instanceof AmbiguousError
      && /"aaaa" matches several links: PC1:0\/0-SW1:0\/0 \(aaaa1111-.*\), PC2:0\/0-SW1:0\/1 \(aaaa2222-/.test(err.message));
  });

  it('by its ends in either order, with numbers, ADAPTER/PORT or port names', () => {
    for (const ref of ['PC1:0/0-SW1:0/0', 'SW1:0/0-PC1:0/0', 'PC1:0-SW1:0', 'SW1:0-PC1:0', 'PC1:e0-SW1:Ethernet0', 'PC1:0/0 <-> SW1:0/0', ' SW1:0 <-> PC1:0 ']) {
      assert.equal(find(ref), l1, ref);
    }
    assert.equal(find('PC2:0/0-SW1:0/1'), l2);
  });

  it('node names with dashes: every cut at a dash is tried', () => {
    assert.equal(find('core-sw:3-SW1:7'), l3);
    assert.equal(find('SW1:0/7-core-sw:0/3'), l3);
  });

  it('one end alone names the link on that port', () => {
    assert.equal(find('PC2:0'), l2);
    assert.equal(find('core-sw:Ethernet3'), l3);
  });

  it('the ends of no link: says which ports and lists the links', () => {
    assert.throws(() => find('PC1:0/0-SW1:0/1'), (err) => err instanceof NoMatchError
      && err.message === 'no link connects PC1:0/0 and SW1:0/1; links: PC1:0/0-SW1:0/0, PC2:0/0-SW1:0/1, SW1:0/7-core-sw:0/3');
    assert.throws(() => find('SW1:5'), (err) => err instanceof NoMatchError && /^no link on SW1:0\/5; links: /.test(err.message));
  });

  it('an unknown node in the ends names it', () => {
    assert.throws(() => find('PC1:0-SW9:0'), (err) => err instanceof NoMatchError && /^no node matches "SW9"; known: /.test(err.message));
  });

  it('a plain word is taken as a UUID prefix or name: no match lists the links', () => {
    assert.throws(() => find('PC1'), (err) => err instanceof NoMatchError
      && /^no link matches "PC1"; known: PC1:0\/0-SW1:0\/0 \(aaaa1111-/.test(err.message));
  });

  it('two readings naming two links are ambiguous', () => {
    // Node "A:0-B" makes "A:0-B:0" read both as the ends A:0 and B:0 and as the one end (A:0-B):0.
    const a = node('A', '55555555-0000-4000-8000-000000000005');
    const b = node('B', '66666666-0000-4000-8000-000000000006');
    const odd = node('A:0-B', '77777777-0000-4000-8000-000000000007');
    const c = node('C', '88888888-0000-4000-8000-000000000008');
    const ab = link('cccc0001-0000-4000-8000-000000000001', [a, 0], [b, 0]);
    const oddc = link('cccc0002-0000-4000-8000-000000000002', [odd, 0], [c, 0]);
    assert.throws(() => findLink([ab, oddc], [a, b, odd, c], 'A:0-B:0'), (err) => err instanceof AmbiguousError
      && /^link "A:0-B:0" is ambiguous: A:0\/0-B:0\/0 \(cccc0001-.*\), A:0-B:0\/0-C:0\/0 \(cccc0002-.*\); use the link UUID$/.test(err.message));
    assert.equal(findLink([ab], [a, b, odd, c], 'A:0-B:0'), ab, 'one reading matching is enough');
  });

  it('an exact node name wins over another node\'s UUID prefix', () => {
    const named = node('dead', '99999999-0000-4000-8000-000000000009');
    const prefixed = node('X', 'dead0000-0000-4000-8000-00000000000a');
    const withNamed = link('dddd0001-0000-4000-8000-000000000001', [named, 0], [sw1, 5]);
    const withPrefixed = link('dddd0002-0000-4000-8000-000000000002', [prefixed, 0], [sw1, 6]);
    assert.equal(findLink([withNamed, withPrefixed], [named, prefixed, sw1], 'dead:0-SW1:5'), withNamed);
  });

  it('linkName and the ends cell', () => {
    assert.equal(linkName(l3, nodes), 'SW1:0/7-core-sw:0/3');
    assert.equal(endsCell(l1, nodes), 'PC1:0/0 (e0) <-> SW1:0/0 (e0)');
    assert.equal(linkName(l1, [sw1]), '11111111:0/0-SW1:0/0', 'an unknown node by its UUID start');
  });
});

describe('link filter: merging and summaries', () => {
  it('merges with the current filters; 0 turns one off', () => {
    const current = { delay: [100, 5], packet_loss: [5] };
    assert.deepEqual(mergeFilters(current, { loss: 10 }, false), { delay: [100, 5], packet_loss: [10] });
    assert.deepEqual(mergeFilters(current, { loss: 0, corrupt: 2 }, false), { delay: [100, 5], corrupt: [2] });
    assert.deepEqual(mergeFilters(current, { delay: 0 }, false), { packet_loss: [5] });
  });

  it('--delay keeps the current jitter and --jitter the current delay', () => {
    assert.deepEqual(mergeFilters({ delay: [100, 5] }, { delay: 200 }, false), { delay: [200, 5] });
    assert.deepEqual(mergeFilters({ delay: [100, 5] }, { jitter: 9 }, false), { delay: [100, 9] });
    assert.deepEqual(mergeFilters({}, { delay: 50 }, false), { delay: [50, 0] });
    assert.throws(() => mergeFilters({}, { jitter: 5 }, false), (err) => err instanceof UsageError && /--jitter .* add --delay MS/.test(err.message));
  });

  it('bpf: one expression per line; an empty one turns it off; -1 frequency drop is kept', () => {
    assert.deepEqual(mergeFilters({}, { bpf: ['icmp', ' arp '], frequencyDrop: -1 }, false), { bpf: ['icmp\narp'], frequency_drop: [-1] });
    assert.deepEqual(mergeFilters({ bpf: ['icmp'] }, { bpf: [''] }, false), {});
  });

  it('--clear starts from nothing, then applies the other options', () => {
    assert.deepEqual(mergeFilters({ delay: [100, 5], rate: [64] }, {}, true), {});
    assert.deepEqual(mergeFilters({ delay: [100, 5] }, { rate: 1000, duplicate: 3 }, true), { rate: [1000], duplicate: [3] });
  });

  it('summaries in words', () => {
    assert.equal(filtersSummary({}), '-');
    assert.equal(filtersSummary(undefined), '-');
    assert.equal(filtersSummary({ delay: [100, 0], packet_loss: [5] }), 'delay 100ms, loss 5%');
    assert.equal(filtersSummary({ delay: [100, 5], frequency_drop: [-1], bpf: ['icmp\narp'] }), 'delay 100±5ms, drop all, bpf "icmp; arp"');
    assert.equal(filtersSummary({ frequency_drop: [3], corrupt: [1], rate: [64], duplicate: [2] }), 'drop 1 in 3, corrupt 1%, rate 64kbit/s, duplicate 2%');
  });
});

describe('node console: telnet negotiation is removed, nothing else', () => {
  it('drops IAC commands (also split across chunks), keeps an escaped 0xFF and every other byte', () => {
    const telnet = new TelnetFilter();
    // What VPCS 0.5b2 sends first: IAC DO ECHO, IAC WILL ECHO, IAC DO SGA, IAC WILL SGA.
    assert.deepEqual(telnet.filter(Buffer.from([255, 253, 1, 255, 251, 1, 255, 253, 3, 255, 251, 3, 13, 13, 10, 0x57])), Buffer.from([13, 13, 10, 0x57]));
    assert.deepEqual(telnet.filter(Buffer.from([0x41, 255])), Buffer.from([0x41]));
    assert.deepEqual(telnet.filter(Buffer.from([251, 1, 0x42, 255, 255, 0x1b, 0x5b])), Buffer.from([0x42, 255, 0x1b, 0x5b]));
    assert.deepEqual(telnet.filter(Buffer.from([255, 250, 24, 1, 255, 240, 0x43])), Buffer.from([0x43]), 'subnegotiation');
    const plain = Buffer.from('PC1> \r\n');
    assert.equal(telnet.filter(plain), plain, 'untouched when there is nothing to remove');
  });
});
