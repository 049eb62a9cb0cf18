// The planner on its own: what it plans for a server state written out here (the same objects
// GNS3 and emuctl answer with), for the cases the e2e tests do not reach.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Link } from '../../../src/client/links.js';
import type { Node } from '../../../src/client/nodes.js';
import { parseLab } from '../../../src/lab/parse.js';
import { planLab } from '../../../src/lab/plan.js';
import type { LabState } from '../../../src/lab/state.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const node = (n: number, name: string, type: string, extra: Partial<Node> = {}): Node => ({
  node_id: id(n), project_id: id(0), compute_id: 'local', name, node_type: type, status: 'started', console: null, console_type: 'none',
  console_host: '127.0.0.1', properties: {}, ports: [], ...extra,
});
const link = (n: number, a: [number, number], b: [number, number]): Link => ({
  link_id: id(100 + n), project_id: id(0), link_type: 'ethernet', capturing: false, capture_file_name: null, capture_file_path: null,
  capture_compute_id: null, filters: {}, suspend: false,
  nodes: [{ node_id: id(a[0]), adapter_number: 0, port_number: a[1] }, { node_id: id(b[0]), adapter_number: 0, port_number: b[1] }],
});
const state = (nodes: Node[], links: Link[], scripts: [number, string][] = []): LabState => ({
  project: { project_id: id(0), name: 'p', status: 'opened' }, nodes, links, scripts: new Map(scripts.map(([n, s]) => [id(n), s])),
  computes: [{ compute_id: 'local', name: 'host', protocol: 'http', host: '127.0.0.1', port: 3080, connected: true },
    { compute_id: id(99), name: 'lab-b', protocol: 'http', host: '127.0.0.2', port: 3080, connected: true }],
});
const lines = (file: string, s: LabState) => planLab(parseLab(file, 'lab.yml'), s).steps.map((step) => step.text);

describe('lab planner', () => {
  const server = state([node(1, 'SW1', 'ethernet_switch'), node(2, 'PC1', 'vpcs'), node(3, 'PC2', 'vpcs')],
    [link(1, [2, 0], [1, 0]), link(2, [3, 0], [1, 1])], [[2, 'set pcname PC1\nip 10.0.0.1/24\n'], [3, 'set pcname PC2\nip 10.0.0.2/24\n']]);

  it('nothing to do when the server holds the file', () => {
    assert.deepEqual(lines('name: p\nnodes:\n  SW1: {type: ethernet_switch}\n  PC1: {type: vpcs, ip: 10.0.0.1/24}\n  PC2: {type: vpcs, ip: 10.0.0.2/24}\nlinks:\n  - [PC1:0/0, SW1:0/0]\n  - [SW1:0/1, PC2:0/0]\n', server), []);
  });

  it('a node moved to another compute is replaced, with its links', () => {
    assert.deepEqual(lines('name: p\nnodes:\n  SW1: {type: ethernet_switch}\n  PC1: {type: vpcs, ip: 10.0.0.1/24}\n  PC2: {type: vpcs, ip: 10.0.0.2/24, compute: lab-b}\nlinks:\n  - [PC1:0/0, SW1:0/0]\n  - [SW1:0/1, PC2:0/0]\n', server), [
      '- link PC2:0/0-SW1:0/1', '- node PC2 (replaced)', '+ node PC2 (vpcs on lab-b)', '+ link SW1:0/1-PC2:0/0', '> start PC2',
    ]);
  });

  it('two unlinked nodes that could each be the renamed one: no guess, delete and create', () => {
    const two = state([node(2, 'PC1', 'vpcs'), node(3, 'PC2', 'vpcs')], []);
    assert.deepEqual(lines('name: p\nnodes:\n  PC7: {type: vpcs}\n', two), ['- node PC1', '- node PC2', '+ node PC7 (vpcs on local)', '> start PC7']);
    assert.deepEqual(lines('name: p\nnodes:\n  PC1: {type: vpcs}\n  PC7: {type: vpcs}\n', two), ['~ node PC2 → PC7']);
  });

  it('a stopped switch is started; a new one is not (it runs from its creation)', () => {
    const stopped = state([node(1, 'SW1', 'ethernet_switch', { status: 'stopped' })], []);
    assert.deepEqual(lines('name: p\nnodes:\n  SW1: {type: ethernet_switch}\n  SW2: {type: ethernet_switch}\n', stopped), ['+ node SW2 (ethernet_switch on local)', '> start SW1']);
  });

  it('an unknown compute is a file error at the compute', () => {
    assert.throws(() => lines('name: p\nnodes:\n  PC1: {type: vpcs, compute: lab-z}\n', server), /^LabFileError: lab\.yml:3:30: unknown compute "lab-z" for node PC1; the server has: host \(local\), lab-b \(0{8}-0{4}-4000-8000-0{10}99\)$/);
  });
});
