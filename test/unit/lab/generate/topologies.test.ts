// The generators' topologies (src/lab/generate/topologies.ts): shapes, names, and bad options.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clos, GenerateOptionError, ring, star, tree } from '../../../../src/lab/generate/topologies.js';

const degree = (links: string[][], name: string) => links.filter((l) => l.includes(name)).length;

describe('generated topologies', () => {
  it('clos links every leaf to every spine, one host per leaf point-to-point, more on a LAN', () => {
    const t = clos({ spines: 2, leaves: 4, hostsPerLeaf: 1 });
    assert.deepEqual(t.nodes.map((n) => n.name), ['S1', 'S2', 'L1', 'L2', 'L3', 'L4', 'H1', 'H2', 'H3', 'H4']);
    assert.equal(t.links.filter((l) => l[0]!.startsWith('L') && l[1]!.startsWith('S')).length, 8);
    assert.deepEqual(t.links.at(-1), ['L4', 'H4']);
    const lan = clos({ spines: 1, leaves: 2, hostsPerLeaf: 3 });
    assert.deepEqual(lan.links.at(-1), ['L2', 'H2-1', 'H2-2', 'H2-3']);
    assert.deepEqual(clos({ spines: 2, leaves: 2, hostsPerLeaf: 0 }).nodes.filter((n) => n.device === 'linux'), []);
  });

  it('ring closes, star has one hub, tree numbers breadth first', () => {
    const r = ring({ routers: 5, hostsPerRouter: 0 });
    assert.deepEqual(r.links.at(-1), ['R5', 'R1']);
    assert.ok(r.nodes.every((n) => degree(r.links, n.name) === 2));
    const s = star({ routers: 5, hostsPerRouter: 1 });
    assert.equal(degree(s.links, 'R1'), 5);
    assert.deepEqual(s.links.slice(0, 4), [['R1', 'R2'], ['R1', 'R3'], ['R1', 'R4'], ['R1', 'R5']]);
    const t = tree({ depth: 2, fanout: 3, hostsPerLeaf: 1 });
    assert.equal(t.nodes.filter((n) => n.device === 'frr').length, 13);
    assert.deepEqual(t.links.slice(0, 4), [['R1', 'R2'], ['R1', 'R3'], ['R1', 'R4'], ['R2', 'R5']]);
    assert.deepEqual(t.links.at(-1), ['R13', 'H13']);
    assert.equal(t.nodes.filter((n) => n.device === 'linux').length, 9);
  });

  it('refuses counts out of range with one line naming the option', () => {
    const refused: [() => unknown, RegExp][] = [
      [() => clos({ spines: 0, leaves: 4, hostsPerLeaf: 1 }), /^--spines must be a whole number from 1 to 64, not 0$/],
      [() => clos({ spines: 2, leaves: 2.5, hostsPerLeaf: 1 }), /^--leaves must be/],
      [() => ring({ routers: 2, hostsPerRouter: 0 }), /^--routers must be a whole number from 3/],
      [() => star({ routers: 66, hostsPerRouter: 0 }), /^--routers must be a whole number from 2 to 65/],
      [() => tree({ depth: 11, fanout: 2, hostsPerLeaf: 0 }), /^that makes \d+ routers; a generated lab has at most 2000$/],
      [() => ring({ routers: 300, hostsPerRouter: 1 }), /^that makes 300 host LANs; a generated lab has at most 256/],
      [() => tree({ depth: 1, fanout: -1, hostsPerLeaf: 0 }), /^--fanout must be/],
    ];
    for (const [make, message] of refused) assert.throws(make, (err: Error) => err instanceof GenerateOptionError && message.test(err.message));
  });
});
