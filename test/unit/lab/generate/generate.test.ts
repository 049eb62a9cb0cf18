// generateLab (src/lab/generate/generate.ts): every generated file is one `lab up` reads (schema,
// devices, interfaces, addressing), examples/bgp-fabric.yml is what the generator writes, and
// `--ping all` pairs every generated host once at its generated address (src/lab/ping-all.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { UsageError } from '../../../../src/cli/errors.js';
import { commandLine, generateLab, type GenerateRequest } from '../../../../src/lab/generate/generate.js';
import { GenerateOptionError } from '../../../../src/lab/generate/topologies.js';
import { parseLab } from '../../../../src/lab/parse.js';
import { allHostPairs } from '../../../../src/lab/ping-all.js';

const EXAMPLE = fileURLToPath(new URL('../../../../../examples/bgp-fabric.yml', import.meta.url));
const FABRIC: GenerateRequest = { kind: 'clos', options: { spines: 2, leaves: 4, hostsPerLeaf: 1 }, routing: 'bgp' };

describe('generateLab', () => {
  it('writes files emuctl reads, for every kind and both routings, with generated configurations', () => {
    const requests: GenerateRequest[] = [
      FABRIC,
      { kind: 'clos', options: { spines: 4, leaves: 16, hostsPerLeaf: 2 }, routing: 'ospf' },
      { kind: 'ring', options: { routers: 3, hostsPerRouter: 1 }, routing: 'ospf' },
      { kind: 'ring', options: { routers: 100, hostsPerRouter: 0 }, routing: 'bgp' },
      { kind: 'star', options: { routers: 8, hostsPerRouter: 1 }, routing: 'bgp', image: 'my/frr:9', hostImage: 'busybox:1.36' },
      { kind: 'tree', options: { depth: 3, fanout: 2, hostsPerLeaf: 1 }, routing: 'ospf' },
    ];
    for (const req of requests) {
      const text = generateLab(req, 'gen.yml', {});
      assert.equal(generateLab(req, 'gen.yml', {}), text, 'the same bytes twice');
      const spec = parseLab(text, 'gen.yml', {});
      const routers = spec.nodes.filter((n) => n.device === 'frr');
      assert.ok(routers.length >= 3);
      for (const r of routers) {
        const conf = r.files?.find((f) => f.path === '/etc/frr/frr.conf');
        assert.ok(conf, `${r.name} gets an frr.conf`);
        assert.match((conf as { text?: string }).text ?? '', new RegExp(`router ${req.routing}`));
      }
      if (req.image) assert.ok(routers.every((r) => r.image === 'my/frr:9'));
    }
  });

  it('spells out the options that made the file', () => {
    assert.equal(commandLine(FABRIC), 'emuctl lab generate clos --spines 2 --leaves 4 --hosts-per-leaf 1 --routing bgp');
    assert.equal(commandLine({ kind: 'ring', options: { routers: 3, hostsPerRouter: 0 }, routing: 'ospf', image: '${FRR_IMAGE}' }),
      "emuctl lab generate ring --routers 3 --hosts-per-router 0 --routing ospf --image '${FRR_IMAGE}'");
  });

  it('examples/bgp-fabric.yml is the generated fabric (its name and tests aside)', () => {
    const example = readFileSync(EXAMPLE, 'utf8');
    const generated = generateLab(FABRIC, EXAMPLE, {});
    const body = (text: string) => text.slice(text.indexOf('# Loopbacks'), text.includes('\ntests:') ? text.lastIndexOf('# emuctl lab test') : undefined);
    assert.equal(body(example), body(generated));
    assert.equal(parseLab(example, EXAMPLE, {}).name, 'bgp-fabric');
  });

  it('refuses a count out of range before writing anything', () => {
    assert.throws(() => generateLab({ kind: 'ring', options: { routers: 1, hostsPerRouter: 0 }, routing: 'ospf' }, 'x.yml', {}), GenerateOptionError);
  });
});

describe('--ping all', () => {
  it('pairs every linux host once, at its generated address', () => {
    const spec = parseLab(generateLab(FABRIC, 'f.yml', {}), 'f.yml', {});
    const { pairs, addresses } = allHostPairs(spec);
    assert.deepEqual(pairs.map((p) => `${p.from}:${p.to}`), ['H1:H2', 'H1:H3', 'H1:H4', 'H2:H3', 'H2:H4', 'H3:H4']);
    assert.deepEqual([...addresses.keys()], ['H1', 'H2', 'H3', 'H4']);
    assert.equal(new Set(addresses.values()).size, 4);
    for (const a of addresses.values()) assert.match(a, /^198\.19\.\d+\.\d+$/);
  });

  it('is a usage error for a lab with fewer than two generated hosts', () => {
    const spec = parseLab(generateLab({ kind: 'ring', options: { routers: 3, hostsPerRouter: 0 }, routing: 'ospf' }, 'r.yml', {}), 'r.yml', {});
    assert.throws(() => allHostPairs(spec), (e: Error) => e instanceof UsageError && /--ping all pings every pair of the lab's linux hosts .* and r\.yml has none/.test(e.message));
  });
});
