import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Drawing, DRAWING_DEFAULTS } from '../../../../src/daemon/controller/drawing.js';
import { ControllerLink } from '../../../../src/daemon/controller/link.js';
import { ControllerNode } from '../../../../src/daemon/controller/node.js';
import { CachedTopologyEntry } from '../../../../src/daemon/controller/topology-entry.js';

class Counted extends CachedTopologyEntry {
  calls = 0;
  value = 1;
  override toTopology(): Record<string, unknown> {
    this.calls++;
    return { value: this.value };
  }
}

describe('CachedTopologyEntry', () => {
  it('serialises once, as `,` and the JSON, until touched', () => {
    const entry = new Counted();
    assert.equal(entry.topologyBytes().toString(), ',{"value":1}');
    entry.value = 2;
    assert.equal(entry.topologyBytes().toString(), ',{"value":1}', 'kept until touch()');
    assert.equal(entry.calls, 1);
    entry.touch();
    assert.equal(entry.topologyBytes().toString(), ',{"value":2}');
    assert.equal(entry.calls, 2);
  });

  it('is the one cache of drawings, links and nodes', () => {
    for (const cls of [Drawing, ControllerLink, ControllerNode]) assert.ok(cls.prototype instanceof CachedTopologyEntry, cls.name);
    const drawing = new Drawing('d1', 'p1', { ...DRAWING_DEFAULTS });
    const before = drawing.topologyBytes();
    drawing.fields = { ...drawing.fields, x: 10 };
    assert.equal(drawing.topologyBytes(), before);
    drawing.touch();
    assert.deepEqual(JSON.parse(drawing.topologyBytes().subarray(1).toString()), { drawing_id: 'd1', ...DRAWING_DEFAULTS, x: 10 });
  });
});
