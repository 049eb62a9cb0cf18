// Addressing of generated labs: golden plans, defaults, pins, IPv6, and a 2,000-node lab.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderAddressing } from '../../../../src/lab/generated/configs.js';
import { addressText, parseAddress, parsePrefix } from '../../../../src/lab/generated/ip.js';
import { parseLab } from '../../../../src/lab/parse.js';
import { assertGolden, fixtureLab } from './golden.js';

describe('generated addressing', () => {
  for (const lab of ['ospf-triangle', 'bgp-fabric', 'ibgp-rr-ipv6', 'bgp-groups']) {
    it(`${lab}: the plan is its golden file, and the same twice`, () => {
      const text = renderAddressing(fixtureLab(lab).generated!);
      assertGolden(`${lab}.addressing.txt`, text);
      assert.equal(renderAddressing(fixtureLab(lab).generated!), text);
    });
  }

  it('pinned addresses are kept and never handed out again; /30 and /31 links share the pool', () => {
    const plan = fixtureLab('ospf-triangle').generated!;
    const r3 = plan.nodes.find((n) => n.name === 'R3')!;
    assert.equal(r3.routerId, '198.18.0.99');
    const all = plan.nodes.flatMap((n) => n.interfaces.map((i) => addressText(4, i.address[4]!.value)));
    assert.ok(all.includes('198.18.99.0') && all.includes('198.18.99.1'));
    assert.equal(new Set(all).size, all.length);
    const r2 = plan.nodes.find((n) => n.name === 'R2')!;
    assert.equal(r2.interfaces.find((i) => i.link.p2pPrefix === 30)!.address[4]!.length, 30);
  });

  it('the documented default pools: 10.0.0.0/16 loopbacks, 10.1.0.0/16 /31s, 172.16.0.0/12 /24s', () => {
    const spec = parseLab('name: d\nnodes:\n  R1: {device: frr}\n  R2: {device: frr}\n  H1: {device: linux}\nlinks:\n  - [R1, R2]\n  - [R2, H1]\n', 'd.yml', {});
    assert.equal(renderAddressing(spec.generated!), [
      'R1 lo 10.0.0.1/32 router-id 10.0.0.1',
      'R1 eth0 10.1.0.0/31 p2p with R2',
      'R2 lo 10.0.0.2/32 router-id 10.0.0.2',
      'R2 eth0 10.1.0.1/31 p2p with R1',
      'R2 eth1 172.16.0.1/24 lan with H1',
      'H1 eth0 172.16.0.2/24 lan with R2',
      'H1 gateway 172.16.0.1',
      '',
    ].join('\n'));
    assert.equal(spec.nodes.find((n) => n.name === 'H1')!.ip, '172.16.0.2/24');
    assert.equal(spec.nodes.find((n) => n.name === 'R1')!.image, 'emuctl/frr:latest');
    assert.equal(spec.nodes.find((n) => n.name === 'H1')!.image, 'emuctl/host:latest');
    const custom = parseLab('name: d\nnodes:\n  R1: {device: frr}\n', 'd.yml', { FRR_IMAGE: 'emuctl-test/frr:abc' });
    assert.equal(custom.nodes[0].image, 'emuctl-test/frr:abc');
  });

  it('IPv6 text is RFC 5952 short form', () => {
    assert.equal(addressText(6, parseAddress('2001:0db8:0:0:1:0:0:1')!.value), '2001:db8::1:0:0:1');
    assert.equal(addressText(6, parseAddress('::')!.value), '::');
    assert.equal(addressText(6, parsePrefix('2001:db8:ff::/64')!.value), '2001:db8:ff::');
    assert.equal(parsePrefix('10.0.0.0/33'), undefined);
  });

  it('2,000 nodes: 1,000 routers in a ring, a host on each; every address unique, the same twice', () => {
    const n = 1000;
    const lines = ['name: big', 'modules: [ospf]', 'nodes:'];
    for (let i = 1; i <= n; i++) lines.push(`  R${i}: {device: frr}`, `  H${i}: {device: linux}`);
    lines.push('links:');
    for (let i = 1; i <= n; i++) lines.push(`  - [R${i}, R${(i % n) + 1}]`, `  - [R${i}, H${i}]`);
    const text = lines.join('\n') + '\n';
    const started = process.hrtime.bigint();
    const spec = parseLab(text, 'big.yml', {});
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const plan = spec.generated!;
    assert.equal(plan.nodes.length, 2 * n);
    assert.equal(plan.links.length, 2 * n);
    const addresses = plan.nodes.flatMap((node) => [...(node.loopback[4] ? [node.loopback[4]] : []), ...node.interfaces.map((i) => i.address[4]!)]).map((p) => addressText(4, p.value));
    assert.equal(addresses.length, n + 2 * n + 2 * n);
    assert.equal(new Set(addresses).size, addresses.length);
    for (const host of plan.nodes.filter((x) => x.role === 'host')) {
      const router = plan.nodes.find((x) => x.name === host.name.replace('H', 'R'))!;
      assert.equal(host.gateway[4]!.value, router.interfaces.find((i) => i.peers[0].node === host.name)!.address[4]!.value);
    }
    assert.equal(plan.nodes.find((x) => x.name === `R${n}`)!.routerId, `10.0.${Math.floor(n / 256)}.${n % 256}`);
    assert.equal(renderAddressing(parseLab(text, 'big.yml', {}).generated!), renderAddressing(plan));
    console.log(`# 2,000-node lab parsed and addressed in ${ms.toFixed(0)} ms`);
  });
});
