// `emuctl lab` against the strict fake GNS3 2.2 server (helpers/fake-gns3.ts): lab up sends
// only what GNS3 accepts (every answer below 400, node bodies checked by the compute's own
// schemas), VPCS addresses go to startup.vpc through the node's files, a second up only reads,
// changes in place use GNS3's routes, save reads back what up wrote (QEMU nodes too), and a filter GNS3 does not
// offer on a link stops the run before it is sent.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, jsonOf, removeTempHome, runInProcess, tempHome } from './helpers/cli.js';
import { startFakeGns3, type FakeGns3, type Recorded } from './helpers/fake-gns3.js';

const LAB = `name: on-gns3
nodes:
  SW1: {type: ethernet_switch, ports: {0-1: {vlan: 10}, 6: {type: qinq, vlan: 100, ethertype: 0x88A8}, 7: {type: dot1q}}}
  HUB1: {type: ethernet_hub, port_count: 4}
  PC1: {type: vpcs, ip: 10.0.10.1/24, gateway: 10.0.10.254, dns: 10.0.10.53}
  PC2: {type: vpcs, ip: 10.0.10.2/24}
links:
  - [PC1:0/0, SW1:0/0]
  - {endpoints: [PC2:e0, SW1:Ethernet1], filters: {delay: 20, packet_loss: 1}}
  - [SW1:0/7, HUB1:0/0]
captures: [PC1:0/0-SW1:0/0]
`;

describe('lab against a GNS3 2.2 server', () => {
  let gns3: FakeGns3;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-gns3-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const sentBy = async (...argv: string[]) => {
    const from = gns3.requests.length;
    const r = await runInProcess(argv, env);
    return { r, sent: gns3.requests.slice(from) };
  };
  // Not refusals: a notification stream GNS3 2.2 closes, and the CLI's API probe (GET /v3/version, a 404 on 2.2).
  const refused = (sent: Recorded[]) => sent.filter((s) => s.status >= 400 && !(s.method === 'GET' && (/notifications/.test(s.path) || s.path === '/v3/version')));

  before(async () => {
    gns3 = await startFakeGns3();
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: gns3.url });
  });
  after(async () => {
    await gns3.close();
    removeTempHome(home);
    removeTempHome(dir);
  });

  it('up --profile P --dry-run: the plan against the profile\'s server, nothing sent but reads', async () => {
    const profileEnv = cliEnv(home);
    assert.equal((await runInProcess(['profile', 'add', 'gns3', '--url', gns3.url], profileEnv)).code, 0);
    const from = gns3.requests.length;
    const r = await runInProcess(['lab', 'up', file('lab.yml', LAB), '--profile', 'gns3', '--dry-run'], profileEnv);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\+ project on-gns3\n[^]*\+ node PC1 \(vpcs on local\)\n/);
    const sent = gns3.requests.slice(from);
    assert.ok(sent.length > 0, 'the profile\'s server was asked');
    assert.deepEqual([...new Set(sent.map((s) => s.method))], ['GET']);
  });

  it('up: every request is one GNS3 accepts; VPCS scripts are written as startup.vpc files', async () => {
    const { r, sent } = await sentBy('lab', 'up', file('lab.yml', LAB));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(refused(sent), []);
    const creates = sent.filter((s) => s.method === 'POST' && /\/nodes$/.test(s.path));
    assert.deepEqual(creates.map((s) => [s.body.name, s.body.node_type, s.body.compute_id, s.status]),
      [['SW1', 'ethernet_switch', 'local', 201], ['HUB1', 'ethernet_hub', 'local', 201], ['PC1', 'vpcs', 'local', 201], ['PC2', 'vpcs', 'local', 201]]);
    assert.deepEqual(creates[0].body.properties.ports_mapping[6], { name: 'Ethernet6', port_number: 6, type: 'qinq', vlan: 100, ethertype: '0x88A8' });
    assert.equal(creates[1].body.properties.ports_mapping.length, 4);
    const scripts = sent.filter((s) => s.method === 'POST' && /\/files\/startup\.vpc$/.test(s.path));
    assert.deepEqual(scripts.map((s) => [s.status, s.body]), [
      [201, 'set pcname PC1\nip 10.0.10.1/24 10.0.10.254\nip dns 10.0.10.53\n'],
      [201, 'set pcname PC2\nip 10.0.10.2/24\n'],
    ]);
    // The filters went on the VPCS link once GNS3 said it offers them there; the switch–hub link has none.
    assert.equal(sent.filter((s) => /\/available_filters$/.test(s.path)).length, 1);
    assert.deepEqual(sent.filter((s) => s.method === 'PUT' && /\/links\//.test(s.path)).map((s) => s.body), [{ filters: { delay: [20, 0], packet_loss: [1] } }]);
    assert.equal(sent.filter((s) => /\/start_capture$/.test(s.path)).length, 1);
    assert.deepEqual(sent.filter((s) => /\/start$/.test(s.path)).map((s) => s.status), [200, 200]);
  });

  it('a second up only reads, and says nothing changed', async () => {
    const { r, sent } = await sentBy('lab', 'up', join(dir, 'lab.yml'));
    assert.equal(r.stdout, '✓ No changes: lab on-gns3 is up to date\n');
    assert.deepEqual([...new Set(sent.filter((s) => !/notifications/.test(s.path)).map((s) => s.method))], ['GET']);
  });

  it('changes in place: a rename, a new address (files, then a restart), a VLAN, a filter', async () => {
    const changed = LAB.replace('PC2: {type: vpcs, ip: 10.0.10.2/24}', 'PC9: {type: vpcs, ip: 10.0.10.9/24}').replace('PC2:e0', 'PC9:e0')
      .replace('0-1: {vlan: 10}', '0-1: {vlan: 11}').replace('delay: 20', 'delay: 40');
    const { r, sent } = await sentBy('lab', 'up', file('changed.yml', changed));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /~ node SW1 port 0 vlan 10→11, port 1 vlan 10→11\n/);
    assert.match(r.stdout, /~ node PC2 → PC9, ip 10\.0\.10\.2\/24→10\.0\.10\.9\/24 \(restarts it\)\n/);
    assert.match(r.stdout, /~ link PC9:0\/0-SW1:0\/1 delay 20→40\n/);
    assert.deepEqual(refused(sent), []);
    const puts = sent.filter((s) => s.method === 'PUT' && /\/nodes\//.test(s.path)).map((s) => s.body);
    assert.deepEqual(puts.map((b) => Object.keys(b)), [['properties'], ['name']]);
    assert.deepEqual(sent.filter((s) => /startup\.vpc$/.test(s.path) && s.method === 'POST').map((s) => s.body), ['set pcname PC9\nip 10.0.10.9/24\n']);
    assert.deepEqual(sent.filter((s) => /\/nodes\/[^/]+\/(stop|start)$/.test(s.path)).map((s) => s.path.split('/').pop()), ['stop', 'start']);
    assert.equal((await runInProcess(['lab', 'up', join(dir, 'changed.yml')], env)).stdout, '✓ No changes: lab on-gns3 is up to date\n');
  });

  it('why scripts go through files: GNS3 sends a startup_script property back with a rename, which VPCS refuses', async () => {
    const pid = [...gns3.projects.values()].find((p) => p.name === 'on-gns3')!.project_id;
    const call = (method: string, path: string, body: unknown) => fetch(`${gns3.url}/v2/projects/${pid}${path}`, { method, body: JSON.stringify(body) });
    const created = await (await call('POST', '/nodes', { name: 'PCX', node_type: 'vpcs', compute_id: 'local', properties: { startup_script: 'ip 10.9.9.9/24' } })).json() as { node_id: string };
    const renamed = await call('PUT', `/nodes/${created.node_id}`, { name: 'PCY' });
    assert.equal(renamed.status, 400);
    assert.match((await renamed.json() as { message: string }).message, /^Bad request \S+ .*Additional properties are not allowed \('startup_script' was unexpected\)/);
    assert.equal((await call('DELETE', `/nodes/${created.node_id}`, undefined)).status, 204);
  });

  it('save reads back the lab that up made; inspect shows its addresses', async () => {
    const { r, sent } = await sentBy('lab', 'save', 'on-gns3');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(refused(sent), []);
    assert.match(r.stdout, /\n {2}PC1:\n {4}type: vpcs\n {4}ip: 10\.0\.10\.1\/24\n {4}gateway: 10\.0\.10\.254\n {4}dns: 10\.0\.10\.53\n/);
    assert.match(r.stdout, /\n {2}SW1:\n {4}type: ethernet_switch\n {4}ports:\n {6}0-1:\n {8}vlan: 11\n {6}6:\n {8}type: qinq\n {8}vlan: 100\n {8}ethertype: "0x88A8"\n {6}7:\n {8}type: dot1q\n/);
    assert.match(r.stdout, /\n {2}HUB1:\n {4}type: ethernet_hub\n {4}port_count: 4\n/);
    assert.match(r.stdout, /\ncaptures:\n {2}- PC1:0\/0-SW1:0\/0\n$/);
    const json = jsonOf(await runInProcess(['lab', 'inspect', 'on-gns3', '--json'], env));
    assert.deepEqual(json.nodes.map((n: any) => [n.name, n.ip]), [['HUB1', null], ['PC1', '10.0.10.1/24'], ['PC9', '10.0.10.9/24'], ['SW1', null]]);
  });

  it('a filter GNS3 does not offer on a link is refused before it is sent (exit 1 naming the step)', async () => {
    const withFilter = LAB.replace('name: on-gns3', 'name: no-filter').replace('[SW1:0/7, HUB1:0/0]', '{endpoints: [SW1:0/7, HUB1:0/0], filters: {delay: 5}}');
    const { r, sent } = await sentBy('lab', 'up', file('no-filter.yml', withFilter));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^emuctl: step "\+ link SW1:0\/7-HUB1:0\/0 \(delay 5\)" failed: the server does not offer the delay filter on this link; it offers no filters on this link; nothing was changed; \d+ of \d+ steps were applied before it/);
    assert.deepEqual(refused(sent), []);
    assert.equal(sent.filter((s) => s.method === 'PUT' && /\/links\//.test(s.path) && s.body.filters?.delay).length, 1, 'only the VPCS link got its delay');
  });

  it('nodes from templates: GNS3 2.2 template usage (x, y, name, compute_id), idempotent', async () => {
    const path = file('templates.yml', 'name: from-templates\nnodes:\n  H1: {template: VPCS}\n  S1: {template: Ethernet switch, x: 100, y: -50}\nlinks:\n  - [H1:0/0, S1:0/3]\n');
    const { r, sent } = await sentBy('lab', 'up', path);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\+ node H1 \(template VPCS on local\)\n/);
    assert.deepEqual(refused(sent), []);
    const uses = sent.filter((s) => s.method === 'POST' && /\/templates\//.test(s.path));
    assert.deepEqual(uses.map((s) => s.body), [{ name: 'H1', compute_id: 'local', x: 0, y: 0 }, { name: 'S1', compute_id: 'local', x: 100, y: -50 }]);
    const project = [...gns3.projects.values()].find((p) => p.name === 'from-templates')!;
    const nodes = jsonOf(await runInProcess(['node', 'list', '-p', project.project_id, '--json'], env));
    assert.deepEqual(nodes.map((n: any) => [n.name, n.node_type, n.status]).sort(), [['H1', 'vpcs', 'started'], ['S1', 'ethernet_switch', 'started']]);
    assert.equal((await runInProcess(['lab', 'up', path], env)).stdout, '✓ No changes: lab from-templates is up to date\n');
    assert.equal((await runInProcess(['lab', 'down', path], env)).code, 0);
  });

  it('a QEMU router: its image, RAM, adapters and kernel boot as GNS3 2.2 qemu properties, port names, a second up that only reads, save', async () => {
    const lab = [
      'name: qemu-on-gns3',
      'nodes:',
      '  R1: {type: qemu, image: router.qcow2, ram: 512, adapters: 3, cpus: 2, adapter_type: virtio-net-pci, kernel: vmlinuz, initrd: initrd.img, kernel_command_line: console=ttyS0}',
      '  PC1: {type: vpcs, ip: 10.7.1.10/24, gateway: 10.7.1.1}',
      '  PC2: {type: vpcs, ip: 10.7.2.10/24, gateway: 10.7.2.1}',
      'links:',
      '  - [PC1:0/0, R1:0/0]',
      '  - [PC2:e0, R1:Ethernet2]',
      '',
    ].join('\n');
    const path = file('qemu.yml', lab);
    const { r, sent } = await sentBy('lab', 'up', path);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(refused(sent), []);
    const create = sent.find((s) => s.method === 'POST' && /\/nodes$/.test(s.path) && s.body.node_type === 'qemu')!;
    assert.deepEqual(create.body.properties, {
      hda_disk_image: 'router.qcow2', ram: 512, adapters: 3, cpus: 2, kernel_image: 'vmlinuz', initrd: 'initrd.img', kernel_command_line: 'console=ttyS0', adapter_type: 'virtio-net-pci',
    });
    const links = sent.filter((s) => s.method === 'POST' && /\/links$/.test(s.path)).map((s) => s.body.nodes.map((e: any) => [e.adapter_number, e.port_number]));
    assert.deepEqual(links, [[[0, 0], [0, 0]], [[0, 0], [2, 0]]]);
    const again = await sentBy('lab', 'up', path);
    assert.equal(again.r.stdout, '✓ No changes: lab qemu-on-gns3 is up to date\n');
    assert.deepEqual(again.sent.filter((s) => s.method !== 'GET'), []);
    const saved = await runInProcess(['lab', 'save', 'qemu-on-gns3'], env);
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /\n {2}R1:\n {4}type: qemu\n/);
    for (const line of ['image: router.qcow2', 'ram: 512', 'adapters: 3', 'cpus: 2', 'kernel: vmlinuz', 'initrd: initrd.img', 'kernel_command_line: console=ttyS0', 'adapter_type: virtio-net-pci']) {
      assert.ok(saved.stdout.includes(`\n    ${line}\n`), `${line} in\n${saved.stdout}`);
    }
    assert.equal((await runInProcess(['lab', 'down', path], env)).code, 0);
  });

  it('graph --format svg without Graphviz on the PATH: one line saying how to get it, exit 1', async () => {
    const r = await runInProcess(['lab', 'graph', join(dir, 'lab.yml'), '--format', 'svg'], { ...env, PATH: join(dir, 'no-such-dir') });
    assert.deepEqual([r.code, r.stdout, r.stderr], [1, '', "emuctl: SVG needs Graphviz's dot, which is not on the PATH (Debian: apt-get install graphviz); --format dot writes the DOT source instead\n"]);
  });

  it('down deletes the project', async () => {
    const { r, sent } = await sentBy('lab', 'down', 'on-gns3');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(refused(sent), []);
    assert.ok(sent.some((s) => s.method === 'DELETE' && s.status === 204));
    assert.ok(![...gns3.projects.values()].some((p) => p.name === 'on-gns3'));
  });
});
