// Second of the two tests per command: template verbs, node create --template, project export,
// import, duplicate and snapshots, run against a real daemon.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDaemon } from '../helpers/daemon.js';
import { assertFails, jsonOf, runInProcess, startCliDaemon, stopCliDaemon } from './helpers/cli.js';

const PORT_RANGES = { EMUCTL_UDP_PORT_RANGE: '22620-22669', EMUCTL_CONSOLE_PORT_RANGE: '27600-27619' };
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('template and project archive commands against the daemon', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const run = (...argv: string[]) => runInProcess(argv, env);

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon({ env: PORT_RANGES }));
    assert.equal((await run('project', 'create', 'lab', '--use')).code, 0);
  });
  after(() => stopCliDaemon({ daemon, home }));

  it('template list: the built-in templates; --json is the server\'s array', async () => {
    const r = await run('template', 'list');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^NAME +TYPE +CATEGORY +BUILTIN +NAMES +COMPUTE +ID$/);
    assert.match(r.stdout, new RegExp(`^VPCS +vpcs +guest +yes +PC\\{0\\} +\\(any\\) +19021f99-e36f-394d-b4a1-8aaa902ab9cc$`, 'm'));
    assert.deepEqual(jsonOf(await run('template', 'ls', '--json')), (await daemon.api('GET', '/v2/templates')).body);
  });

  it('template create / show / delete; errors are one line', async () => {
    const created = await run('template', 'create', 'Access', '-t', 'ethernet_switch', '--name-format', 'Acc{0}', '--set', 'ports_mapping=[{"name":"p0","port_number":0,"type":"access","vlan":20}]');
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, new RegExp(`✓ Created template Access \\(${UUID}\\)\\n$`));
    const shown = await run('template', 'show', 'Access');
    assert.match(shown.stdout, /^type: +ethernet_switch$/m);
    assert.match(shown.stdout, /^ports_mapping: +\[\{"name":"p0","port_number":0,"type":"access","vlan":20\}\]$/m);
    assertFails(await run('template', 'create', 'Bad', '-t', 'iou'), 1, /^emuctl: Unknown template_type 'iou' \(known: ethernet_switch, ethernet_hub, vpcs, qemu, docker, cloud, nat\)\n$/);
    assertFails(await run('template', 'delete', 'VPCS'), 1, /cannot be deleted because it is a builtin/);
    assertFails(await run('template', 'show', 'nothing'), 1, /^emuctl: no template matches "nothing"; known: /);
    assertFails(await run('template', 'create', 'X'), 2, /required option '-t, --type <type>' not specified/);
  });

  it('node create --template: named as the server allocates it, with the template settings', async () => {
    const pc = jsonOf(await run('node', 'create', 'PC{0}', '--template', 'VPCS', '--json'));
    assert.deepEqual([pc.name, pc.node_type, pc.template_id], ['PC1', 'vpcs', '19021f99-e36f-394d-b4a1-8aaa902ab9cc']);
    const sw = await run('node', 'create', 'Edge 1', '-T', 'Access');
    assert.equal(sw.code, 0, sw.stderr);
    assert.match(sw.stdout, new RegExp(`^✓ Created ethernet_switch Edge1 \\(${UUID}\\) on compute local\\n$`));
    const nodes = JSON.parse((await run('node', 'list', '--json')).stdout);
    assert.deepEqual(nodes.find((n: any) => n.name === 'Edge1').ports.map((p: any) => p.name), ['p0']);
    assertFails(await run('node', 'create', 'X', '-T', 'nothing'), 1, /^emuctl: no template matches "nothing"/);
    assert.equal((await run('template', 'delete', 'Access')).code, 0);
  });

  it('project snapshot create / list / restore / delete', async () => {
    const created = await run('project', 'snapshot', 'create', 'before');
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^✓ Took snapshot before \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\) of project lab\n$/);
    assert.equal((await run('node', 'create', 'Later', '-t', 'ethernet_hub')).code, 0);
    const listed = await run('project', 'snapshot', 'list');
    assert.match(listed.stdout, new RegExp(`^before +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ +${UUID}$`, 'm'));
    const restored = await run('project', 'snapshot', 'restore', 'before');
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /its nodes are stopped\n$/);
    assert.ok(!JSON.parse((await run('node', 'list', '--json')).stdout).some((n: any) => n.name === 'Later'), 'the topology is the snapshot\'s');
    assertFails(await run('project', 'snapshot', 'restore', 'nope'), 1, /^emuctl: no snapshot matches "nope"; known: before /);
    assert.equal((await run('project', 'snapshot', 'delete', 'before')).code, 0);
    assert.equal((await run('project', 'snapshot', 'list')).stdout, 'no snapshots of project lab\n');
  });

  it('project export -o FILE, import FILE --name, duplicate: the archive is a GNS3 project that comes back whole', async () => {
    const file = join(home, 'lab.gns3project');
    const exported = await run('project', 'export', 'lab', '-o', file);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, new RegExp(`^✓ Exported project lab \\(${UUID}\\) to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(\\d+(\\.\\d)? kB\\)\\n$`));
    assert.deepEqual(readdirSync(home).filter((f) => f.endsWith('.part')), [], 'no temporary file left');
    const imported = jsonOf(await run('project', 'import', file, '--name', 'lab-copy', '--json'));
    assert.deepEqual([imported.name, imported.status], ['lab-copy', 'closed']);
    assert.equal((await run('project', 'open', 'lab-copy')).code, 0);
    const names = JSON.parse((await run('node', 'list', '-p', 'lab-copy', '--json')).stdout).map((n: any) => n.name).sort();
    assert.deepEqual(names, ['Edge1', 'PC1']);
    const dup = await run('project', 'duplicate', 'lab', '--name', 'lab-twin');
    assert.equal(dup.code, 0, dup.stderr);
    assert.match(dup.stdout, new RegExp(`✓ Duplicated project lab \\(${UUID}\\) as lab-twin \\(${UUID}\\)\\n$`));

    writeFileSync(join(home, 'junk.gns3project'), 'not a zip');
    assertFails(await run('project', 'import', join(home, 'junk.gns3project')), 1, /^emuctl: Cannot import project, not a GNS3 project \(invalid zip\)/);
    assertFails(await run('project', 'import', join(home, 'missing.gns3project')), 2, /is not a file/);
    assertFails(await run('project', 'export', 'nolab', '-o', join(home, 'x.gns3project')), 1, /^emuctl: no project matches "nolab"/);
    assert.ok(!existsSync(join(home, 'x.gns3project')));
  });
});
