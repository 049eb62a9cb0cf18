// The lab files `emuctl lab generate` writes (src/lab/generate/render.ts): golden files under
// test/fixtures/lab-generate/ (UPDATE_GOLDEN=1 rewrites them), the same bytes on every run, and the
// ASNs handed out.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { asOf, asPlan, renderLab, type Provenance } from '../../../../src/lab/generate/render.js';
import { clos, ring, star, tree } from '../../../../src/lab/generate/topologies.js';

const GOLDEN = fileURLToPath(new URL('../../../../../test/fixtures/lab-generate/', import.meta.url));

const CASES: [string, () => string][] = [
  ['clos-2x4-bgp.yml', () => renderLab(clos({ spines: 2, leaves: 4, hostsPerLeaf: 1 }), { routing: 'bgp', command: 'emuctl lab generate clos --spines 2 --leaves 4 --hosts-per-leaf 1 --routing bgp' })],
  ['ring-3-ospf.yml', () => renderLab(ring({ routers: 3, hostsPerRouter: 1 }), { routing: 'ospf', command: 'emuctl lab generate ring --routers 3 --hosts-per-router 1' })],
  ['star-4-ospf-images.yml', () => renderLab(star({ routers: 4, hostsPerRouter: 2 }), { routing: 'ospf', image: 'my/frr:9', hostImage: '${HOST_IMAGE:-busybox:1.36}', command: 'emuctl lab generate star --routers 4 --hosts-per-router 2 --image my/frr:9' })],
  ['tree-2x2-bgp.yml', () => renderLab(tree({ depth: 2, fanout: 2, hostsPerLeaf: 1 }), { routing: 'bgp', command: 'emuctl lab generate tree --depth 2 --fanout 2 --routing bgp' })],
];

describe('generated lab files', () => {
  for (const [file, make] of CASES) {
    it(`${file} is its golden file`, () => {
      const text = make();
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN + file, text);
      assert.equal(text, readFileSync(GOLDEN + file, 'utf8'));
    });
  }

  it('gives the same bytes twice, for a large fabric too', () => {
    const opts: Provenance = { routing: 'bgp', command: 'x' };
    const a = renderLab(clos({ spines: 4, leaves: 96, hostsPerLeaf: 2 }), opts);
    const b = renderLab(clos({ spines: 4, leaves: 96, hostsPerLeaf: 2 }), opts);
    assert.equal(a, b);
    assert.equal(a.match(/^ {2}- \[L\d+, S\d+\]$/gm)?.length, 4 * 96);
    assert.equal(a.match(/bgp: \{as: /g)?.length, 96 + 1, 'each leaf its AS, the spines one in their group');
    assert.match(a, /^groups:\n {2}spines: \{members: \[S1, S2, S3, S4\], bgp: \{as: 65000\}\}\nnodes:\n/m);
  });

  it('clos over BGP: the spines share 65000 in a group, the leaves take 65001 on; an OSPF lab has no groups', () => {
    const topology = clos({ spines: 2, leaves: 3, hostsPerLeaf: 0 });
    const plan = asPlan(topology);
    assert.deepEqual(plan.groups, [{ name: 'spines', members: ['S1', 'S2'], as: 65000 }]);
    assert.deepEqual([...plan.routers], [['L1', 65001], ['L2', 65002], ['L3', 65003]]);
    assert.deepEqual([...asPlan(ring({ routers: 3, hostsPerRouter: 0 })).routers.values()], [65001, 65002, 65003]);
    assert.doesNotMatch(renderLab(topology, { routing: 'ospf', command: 'x' }), /groups:|bgp:/);
  });

  it('hands out one private AS per router, 4-byte ones past the 2-byte range', () => {
    assert.equal(asOf(1, 3), 65001);
    assert.equal(asOf(534, 534), 65534);
    assert.equal(asOf(1, 535), 4200000001);
    const text = renderLab(ring({ routers: 600, hostsPerRouter: 0 }), { routing: 'bgp', command: 'x' });
    assert.match(text, /^ {2}R600: \{device: frr, bgp: \{as: 4200000600\}\}$/m);
  });

  it('quotes what YAML would misread', () => {
    const text = renderLab(ring({ routers: 3, hostsPerRouter: 0 }), { routing: 'ospf', image: 'reg.example:5000/frr:8.4 #x', command: 'x' });
    assert.match(text, /^ {2}frr: \{image: "reg\.example:5000\/frr:8\.4 #x"\}$/m);
  });
});
