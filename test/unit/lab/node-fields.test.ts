// The per-type node keys are one table (src/lab/node-fields.ts): the schema, the type check, the
// raw node and the node spec all follow it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LAB_FILE_SCHEMA } from '../../../src/lab/file-schema.js';
import { LabFileError } from '../../../src/lab/locate.js';
import { KEPT_NODE_FIELDS, NODE_FIELDS } from '../../../src/lab/node-fields.js';
import { parseLab } from '../../../src/lab/parse.js';

/** A value each kept key (and a read key whose schema refuses `{}`) takes, as YAML; a kept key added to the table without one here fails below. */
const SAMPLES: Record<string, [yaml: string, value: unknown]> = {
  ip: ['10.0.0.1/24', '10.0.0.1/24'],
  gateway: ['10.0.0.254', '10.0.0.254'],
  dns: ['10.0.0.53', '10.0.0.53'],
  image: ['disk.qcow2', 'disk.qcow2'],
  ram: ['256', 256],
  adapters: ['3', 3],
  cpus: ['2', 2],
  kernel: ['vmlinuz', 'vmlinuz'],
  initrd: ['initrd.img', 'initrd.img'],
  kernel_command_line: ['console=ttyS0', 'console=ttyS0'],
  adapter_type: ['e1000', 'e1000'],
  cmd: ['sleep 1', 'sleep 1'],
  mgmt_ip: ['10.0.0.5', '10.0.0.5'],
  mgmt_ipv6: ['fd00::5', 'fd00::5'],
};

const nodeSchema = LAB_FILE_SCHEMA.properties.nodes.additionalProperties.properties as Record<string, unknown>;

describe('lab node fields', () => {
  it('the file schema takes each key with the schema of its row', () => {
    for (const [key, field] of Object.entries(NODE_FIELDS)) assert.equal(nodeSchema[key], field.schema, key);
  });

  it('a kept key reaches the node spec as written, under its own name, on every type that takes it', () => {
    assert.ok(KEPT_NODE_FIELDS.length > 0);
    for (const key of KEPT_NODE_FIELDS) {
      assert.ok(SAMPLES[key], `a sample value for ${key}`);
      const [yaml, value] = SAMPLES[key];
      for (const type of NODE_FIELDS[key].types) {
        const extra = [type === 'docker' && key !== 'image' ? 'image: alpine' : '', key === 'gateway' ? 'ip: 10.0.0.1/24' : ''].filter(Boolean);
        const text = `name: p\nnodes:\n  N1: {type: ${type}, ${[`${key}: ${yaml}`, ...extra].join(', ')}}\n`;
        const node = parseLab(text, 'lab.yml', {}).nodes[0];
        assert.deepEqual((node as unknown as Record<string, unknown>)[key], value, `${key} on ${type}`);
      }
    }
  });

  it('a key on a type that does not take it names the types of its row', () => {
    for (const [key, field] of Object.entries(NODE_FIELDS)) {
      const text = `name: p\nnodes:\n  N1: {type: nat, ${key}: ${key in SAMPLES ? SAMPLES[key][0] : key === 'port_count' ? 4 : '{}'}}\n`;
      assert.throws(() => parseLab(text, 'lab.yml', {}), (err: unknown) => err instanceof LabFileError && err.message.includes(`${key}: is for ${field.types.join(' and ')} nodes, not nat`), key);
    }
  });
});
