// The kind contract's checks (test/helpers/kind-contract.ts), run on every kind and on broken toy kinds: a kind
// that forgets a piece of the contract fails it. The contract over the real daemon: test/integration/kinds/contract.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NODE_KINDS } from '../../../src/daemon/kinds/index.js';
import type { KindDeps, NodeKind } from '../../../src/daemon/kinds/kind.js';
import type { JsonSchema } from '../../../src/daemon/schemas/validation.js';
import { resolveSettings } from '../../../src/daemon/settings.js';
import { EXTRA_KINDS } from '../../fixtures/kinds/index.js';
import { TOY_WIRE_KIND } from '../../fixtures/kinds/toy-wire/index.js';
import { fieldBreaches, GNS3_NODE_FIELDS, portBreaches, templateBreaches } from '../../helpers/kind-contract.js';

/** The toy kind with its template changed: the piece a careless new kind gets wrong. */
const toyWith = (fields: NodeKind['template']['fields']): NodeKind => ({ ...TOY_WIRE_KIND, template: { ...TOY_WIRE_KIND.template, fields } });

describe('the kind contract checks', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-kind-contract-'));
  let deps: KindDeps;
  before(async () => {
    const env = { EMUCTL_HOME: home };
    deps = { settings: await resolveSettings({ port: 0, projectsDir: join(home, 'projects') }, env), env, log: { debug() {}, info() {}, warn() {}, error() {} } as never };
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('every kind of kinds/index.ts and the toy kind: the template makes a body its compute accepts', () => {
    for (const kind of [...NODE_KINDS, ...EXTRA_KINDS]) {
      const needs = kind.type === 'docker' ? { image: 'emuctl-test/frr:any' } : {};
      assert.deepEqual(templateBreaches(kind, deps, needs), [], kind.type);
    }
  });

  it('a toy whose template default its compute refuses fails, naming the field', () => {
    const breaches = templateBreaches(toyWith({ port_count: { type: 'integer', default: 9 } }), deps);
    assert.equal(breaches.length, 1);
    assert.match(breaches[0]!, /port_count/);
  });

  it('a toy whose template has a field its compute does not take fails', () => {
    const breaches = templateBreaches(toyWith({ ...TOY_WIRE_KIND.template.fields, colour: { type: 'string', default: 'red' } }), deps);
    assert.equal(breaches.length, 1);
    assert.match(breaches[0]!, /colour/);
  });

  it('controller and compute ports that differ fail, both ways', () => {
    const port = (adapter_number: number, port_number: number) => ({ adapter_number, port_number, name: `Ethernet${port_number}` });
    assert.deepEqual(portBreaches([port(0, 0), port(0, 1)], [port(0, 1), port(0, 0)]), []);
    assert.deepEqual(portBreaches([port(0, 0), port(0, 1), port(0, 2)], [port(0, 0), port(0, 1)]), ['the controller lists port 0/2, the compute does not']);
    assert.deepEqual(portBreaches([port(0, 0)], [port(0, 0), port(1, 0)]), ['the compute lists port 1/0, the controller does not']);
  });

  it('a node JSON without a GNS3 field, or without a field its template sets, fails', () => {
    const complete: Record<string, unknown> = Object.fromEntries(GNS3_NODE_FIELDS.map((f) => [f, null]));
    const schema = TOY_WIRE_KIND.compute(deps).createSchema as JsonSchema;
    const good: Record<string, unknown> = { ...complete, node_type: 'toy_wire', properties: { port_count: 2 } };
    assert.deepEqual(fieldBreaches(TOY_WIRE_KIND, schema, good), []);
    const { ports: _p, ...noPorts } = good;
    assert.deepEqual(fieldBreaches(TOY_WIRE_KIND, schema, noPorts), ['node JSON lacks ports']);
    assert.deepEqual(fieldBreaches(TOY_WIRE_KIND, schema, { ...good, properties: {} }), ["node JSON lacks toy_wire's port_count"]);
  });
});
