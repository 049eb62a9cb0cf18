// Docker nodes in lab files: what they become (GNS3 docker properties, startup files, volumes),
// what a bad one is told, how a changed one is planned, how a server's one is saved, and how the
// startup files are read (only from beside the lab file).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Node } from '../../../src/client/nodes.js';
import { LabFileError } from '../../../src/lab/locate.js';
import { nodeCreateBody, startupVolumes, taggedImage } from '../../../src/lab/node-bodies.js';
import { parseLab } from '../../../src/lab/parse.js';
import { planLab } from '../../../src/lab/plan.js';
import { inspectLab } from '../../../src/lab/inspect.js';
import { DOCKER_FILES_NOTE, saveLab } from '../../../src/lab/save.js';
import { MAX_STARTUP_FILE_BYTES, readStartupFiles } from '../../../src/lab/startup-files.js';
import type { LabState } from '../../../src/lab/state.js';

const ROUTERS = `name: ospf
nodes:
  R1:
    type: docker
    image: \${FRR_IMAGE:-frrouting/frr:v8.4.0}
    adapters: 3
    cmd: sh -c "/usr/lib/frr/frrinit.sh start && sleep infinity"
    env: {TZ: UTC, DEBUG: 1}
    files:
      /etc/frr/frr.conf: r1/frr.conf
      /etc/frr/daemons: daemons
  H1: {type: docker, image: busybox, ip: 198.18.101.10/24}
links:
  - [R1:eth2, H1:e0]
`;

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function errorOf(text: string): LabFileError {
  try {
    parseLab(text, 'lab.yml', {});
  } catch (err) {
    assert.ok(err instanceof LabFileError, String(err));
    return err;
  }
  assert.fail('no error');
}

describe('docker nodes in a lab file', () => {
  it('become GNS3 docker properties: image (tagged), adapters, environment lines, start_command, the files\' directories as volumes', () => {
    const lab = parseLab(ROUTERS, 'lab.yml', {});
    const r1 = lab.nodes.find((n) => n.name === 'R1')!;
    assert.equal(r1.image, 'frrouting/frr:v8.4.0');
    assert.deepEqual(r1.files!.map((f) => [f.path, f.source, f.pos.line]), [['/etc/frr/frr.conf', 'r1/frr.conf', 10], ['/etc/frr/daemons', 'daemons', 11]]);
    assert.deepEqual(nodeCreateBody(r1, 'local').properties, {
      image: 'frrouting/frr:v8.4.0', adapters: 3, environment: 'TZ=UTC\nDEBUG=1',
      start_command: 'sh -c "/usr/lib/frr/frrinit.sh start && sleep infinity"', extra_volumes: ['/etc/frr'],
    });
    const h1 = lab.nodes.find((n) => n.name === 'H1')!;
    assert.deepEqual(nodeCreateBody(h1, 'local').properties, { image: 'busybox:latest' });
    assert.equal(h1.ip, '198.18.101.10/24');
    assert.deepEqual(lab.links[0].ends.map((e) => [e.node, e.adapter, e.port]), [['R1', 2, 0], ['H1', 0, 0]]);
  });

  it('${VAR} in an image comes from the environment, else its default; unset without a default is an error at its line', () => {
    assert.equal(parseLab(ROUTERS, 'lab.yml', { FRR_IMAGE: 'emuctl-test/frr:1' }).nodes[0].image, 'emuctl-test/frr:1');
    const err = errorOf('name: x\nnodes:\n  R1: {type: docker, image: "${NOPE}"}\n');
    assert.match(err.message, /^lab\.yml:3:\d+: \$\{NOPE\} is not set in the environment and has no default/);
  });

  it('a node may share another\'s settings with a YAML merge key (<<: *router), files included', () => {
    const lab = parseLab('name: x\nnodes:\n  R1: &r {type: docker, image: frr, adapters: 2, files: {/etc/frr/daemons: d}}\n  R2: {<<: *r, adapters: 3}\n', 'lab.yml', {});
    assert.deepEqual(lab.nodes.map((n) => [n.name, n.image, n.adapters, n.files?.map((f) => f.path)]), [['R1', 'frr', 2, ['/etc/frr/daemons']], ['R2', 'frr', 3, ['/etc/frr/daemons']]]);
    const switches = parseLab('name: x\nnodes:\n  SW1: &sw {type: ethernet_switch, ports: {0-1: {vlan: 10}}}\n  SW2: {<<: *sw}\n', 'lab.yml', {});
    assert.deepEqual(switches.nodes.map((n) => n.switchPorts!.slice(0, 3).map((p) => p.vlan)), [[10, 10, 1], [10, 10, 1]], 'merged switch ports are kept');
  });

  it('image tags: an untagged image gets :latest as GNS3 gives it (any colon counts, as in GNS3)', () => {
    assert.deepEqual(['frr', 'frr:8', 'host:5000/frr', 'quay.io/frr/frr:9'].map(taggedImage), ['frr:latest', 'frr:8', 'host:5000/frr', 'quay.io/frr/frr:9']);
  });

  it('volumes: one per directory, none below another, after the ones properties gives', () => {
    const file = (path: string) => ({ path, source: 'x', pos: { line: 1, col: 1 } });
    assert.deepEqual(startupVolumes([file('/etc/frr/frr.conf'), file('/etc/hosts.extra'), file('/srv/a/b')], ['/data']), ['/data', '/etc', '/srv/a']);
  });

  it('bad docker nodes: no image, a bad container path, a source outside the lab directory, a docker key on another type, a two-line env value', () => {
    assert.match(errorOf('name: x\nnodes:\n  R1: {type: docker}\n').message, /^lab\.yml:3:3: docker node R1 needs an image:$/);
    for (const target of ['etc/frr.conf', '/frr.conf', '/etc/../shadow', '/etc//frr', '/etc/frr/']) {
      assert.match(errorOf(`name: x\nnodes:\n  R1: {type: docker, image: frr, files: {"${target}": a}}\n`).message, /^lab\.yml:3:\d+: files: .* (is not a plain absolute file path|must be inside a directory)/, target);
    }
    for (const source of ['/etc/passwd', '../secret', 'r1/../../secret', 'C:/x']) {
      assert.match(errorOf(`name: x\nnodes:\n  R1: {type: docker, image: frr, files: {/etc/frr/frr.conf: "${source}"}}\n`).message,
        /^lab\.yml:3:\d+: files: source .* must be a relative path below the lab file's directory/, source);
    }
    assert.match(errorOf('name: x\nnodes:\n  PC1: {type: vpcs, cmd: ls}\n').message, /: cmd: is for docker nodes, not vpcs$/);
    assert.match(errorOf('name: x\nnodes:\n  R1: {type: docker, image: frr, env: {A: "1\\n2"}}\n').message, /: env A: a value is one line/);
    assert.match(errorOf('name: x\nnodes:\n  R1: {type: docker, image: frr, env: {1A: x}}\n').message, /^lab\.yml:3:/);
  });
});

describe('startup files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-files-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const lab = (files: string) => parseLab(`name: x\nnodes:\n  R1: {type: docker, image: frr, files: {${files}}}\n`, join(dir, 'lab', 'lab.yml'), {});
  mkdirSync(join(dir, 'lab', 'r1'), { recursive: true });
  writeFileSync(join(dir, 'lab', 'r1', 'frr.conf'), 'hostname R1\n');
  writeFileSync(join(dir, 'secret'), 'not for the lab\n');
  symlinkSync(join(dir, 'secret'), join(dir, 'lab', 'r1', 'link.conf'));
  symlinkSync(join(dir, 'lab', 'r1', 'frr.conf'), join(dir, 'lab', 'inside.conf'));
  symlinkSync(dir, join(dir, 'lab', 'up'));
  writeFileSync(join(dir, 'lab', 'big.conf'), Buffer.alloc(MAX_STARTUP_FILE_BYTES + 1, 0x61));
  writeFileSync(join(dir, 'lab', 'binary.bin'), Buffer.from([0xff, 0xfe, 0x00]));

  it('are read from beside the lab file (a link that stays inside is fine)', async () => {
    const spec = await readStartupFiles(lab('/etc/frr/frr.conf: r1/frr.conf, /etc/frr/b.conf: inside.conf'));
    assert.deepEqual(spec.nodes[0].files!.map((f) => f.text), ['hostname R1\n', 'hostname R1\n']);
  });

  it('a link out of the lab directory, a missing file, a directory, an oversized or binary file: a lab file error at the line', async () => {
    const cases: [string, RegExp][] = [
      ['r1/link.conf', /leads outside the lab file's directory/],
      ['up/secret', /leads outside the lab file's directory/],
      ['r1/none.conf', /does not exist/],
      ['r1', /is not a regular file/],
      ['big.conf', /over the 1048576-byte limit/],
      ['binary.bin', /is not UTF-8 text/],
    ];
    for (const [source, reason] of cases) {
      await assert.rejects(readStartupFiles(lab(`/etc/frr/frr.conf: ${source}`)), (err: unknown) =>
        err instanceof LabFileError && /lab\.yml:3:\d+: files: \/etc\/frr\/frr\.conf: /.test(err.message) && reason.test(err.message), source);
    }
  });
});

describe('docker nodes on a server', () => {
  const server = (nodes: Node[], files?: [number, string, string | undefined][]): LabState => ({
    project: { project_id: id(0), name: 'ospf', status: 'opened' }, nodes, links: [], scripts: new Map(),
    computes: [{ compute_id: 'local', name: 'local', protocol: 'http', host: '127.0.0.1', port: 3080, connected: true }],
    startupFiles: files && new Map(files.map(([n, path, text]) => [id(n), new Map([[path, text]])])),
  });
  const docker = (n: number, name: string, properties: Record<string, unknown>, status = 'started'): Node => ({
    node_id: id(n), project_id: id(0), compute_id: 'local', name, node_type: 'docker', status, console: 5000, console_type: 'telnet',
    console_host: '127.0.0.1', properties, ports: [],
  });
  const FILE = 'name: ospf\nnodes:\n  R1: {type: docker, image: frr:8, cmd: run, files: {/etc/frr/frr.conf: r1/frr.conf}}\n';
  const withText = (text: string) => {
    const spec = parseLab(FILE, 'lab.yml', {});
    spec.nodes[0].files![0].text = text;
    return spec;
  };
  const r1 = docker(1, 'R1', { image: 'frr:8', start_command: 'run', extra_volumes: ['/etc/frr'], adapters: 1, environment: null });

  it('a new one is created, its file written, then started; an unchanged one is left alone', () => {
    const plan = planLab(withText('hostname R1\n'), server([]));
    assert.deepEqual(plan.steps.map((s) => s.text), ['+ node R1 (docker on local)', '> start R1']);
    assert.deepEqual(planLab(withText('hostname R1\n'), server([r1], [[1, '/etc/frr/frr.conf', 'hostname R1\n']])).steps, []);
  });

  it('a changed startup file is written again and restarts the node; a changed image is put', () => {
    const steps = planLab(withText('hostname R1-new\n'), server([r1], [[1, '/etc/frr/frr.conf', 'hostname R1\n']])).steps;
    assert.deepEqual(steps.map((s) => s.text), ['~ node R1 file /etc/frr/frr.conf changed (restarts it)', '> start R1']);
    assert.equal(steps[0].kind === 'update-node' && steps[0].files?.[0].text, 'hostname R1-new\n');
    const image = planLab(withText('hostname R1\n'), server([{ ...r1, properties: { ...r1.properties, image: 'frr:7' } }], [[1, '/etc/frr/frr.conf', 'hostname R1\n']])).steps;
    assert.deepEqual(image.map((s) => s.text), ['~ node R1 image frr:7→frr:8']);
    // A server that keeps `busybox` as given (emuctl) and one that stores `busybox:latest` (GNS3) both match `image: busybox`.
    const host = 'name: ospf\nnodes:\n  H1: {type: docker, image: busybox}\n';
    for (const stored of ['busybox', 'busybox:latest']) {
      assert.deepEqual(planLab(parseLab(host, 'lab.yml', {}), server([docker(2, 'H1', { image: stored })])).steps, [], stored);
    }
  });

  it('are inspected with their image, and the address the lab file gives them', () => {
    const inspection = inspectLab(server([docker(1, 'H1', { image: 'busybox:latest' }), docker(2, 'R1', { image: 'frr:8' })]), 'http://127.0.0.1:3080', new Map([['H1', '198.18.101.10/24']]));
    assert.deepEqual(inspection.nodes.map((n) => [n.name, n.type, n.image, n.ip]), [['H1', 'docker', 'busybox:latest', '198.18.101.10/24'], ['R1', 'docker', 'frr:8', null]]);
  });

  it('are saved with image, adapters, env, cmd and the properties a lab file has no key for; a comment says files are not saved', () => {
    const saved = saveLab(server([docker(1, 'R1', {
      image: 'frr:8', adapters: 3, environment: 'TZ=UTC\nA=b=c', start_command: 'sh -c "x"', extra_volumes: ['/etc/frr'], console_type: 'telnet', privileged: false,
    }), docker(2, 'H1', { image: 'busybox:latest', adapters: 1, environment: 'not a pair', console_type: 'none' })]));
    assert.ok(saved.startsWith(`${DOCKER_FILES_NOTE}\n`), saved);
    const lab = parseLab(saved, 'saved.yml', {});
    const [h1, r] = lab.nodes;
    assert.deepEqual([r.image, r.adapters, r.env, r.cmd, r.properties], ['frr:8', 3, { TZ: 'UTC', A: 'b=c' }, 'sh -c "x"', { extra_volumes: ['/etc/frr'] }]);
    assert.deepEqual([h1.image, h1.adapters, h1.env, h1.properties], ['busybox:latest', undefined, undefined, { console_type: 'none', environment: 'not a pair' }]);
    assert.ok(!saveLab(server([])).includes(DOCKER_FILES_NOTE));
  });
});
