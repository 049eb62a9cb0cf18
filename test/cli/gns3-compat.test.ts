// The CLI against a strict fake GNS3 2.2 server (helpers/fake-gns3.ts): every noun that a
// GNS3 server serves works, what only an emuctl daemon has says so in one line, and what
// GNS3 would take badly (a filter it does not offer, a capture name that is a path) is
// refused before anything is sent.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertFails, cliEnv, jsonOf, removeTempHome, runBin, runInProcess, tempHome } from './helpers/cli.js';
import { FAKE_GNS3_VERSION, GNS3_FILTER_TYPES, startFakeGns3, type FakeGns3 } from './helpers/fake-gns3.js';

describe('the CLI against a GNS3 2.2 server', () => {
  let gns3: FakeGns3;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const run = (...argv: string[]) => runInProcess(argv, env);
  const ok = async (...argv: string[]) => {
    const r = await run(...argv);
    assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
    return r;
  };
  /** Runs `argv` and returns what it sent to the server. */
  const sentBy = async (argv: string[]) => {
    const before = gns3.requests.length;
    const r = await run(...argv);
    return { r, sent: gns3.requests.slice(before) };
  };

  before(async () => {
    gns3 = await startFakeGns3();
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: gns3.url });
  });
  after(async () => {
    await gns3.close();
    removeTempHome(home);
  });

  it('project: create, use, list, show, close (204), open', async () => {
    const created = jsonOf(await run('project', 'create', 'lab', '--use', '--json'));
    assert.equal(created.name, 'lab');
    assert.match((await ok('project', 'list')).stdout, /lab/);
    assert.equal(jsonOf(await run('project', 'show', 'lab', '--json')).project_id, created.project_id);
    const closed = jsonOf(await run('project', 'close', 'lab', '--json'));
    assert.equal(closed.status, 'closed');
    assert.equal(gns3.sent('POST', /\/close$/).at(-1)!.status, 204);
    assert.equal(jsonOf(await run('project', 'open', 'lab', '--json')).status, 'opened');
  });

  it('node create, switch create and demo send compute_id: local by default, or the --compute given', async () => {
    const { r, sent } = await sentBy(['node', 'create', 'PC1', '--type', 'vpcs']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Created vpcs PC1 .* on compute local/);
    assert.deepEqual(sent.filter((s) => s.method === 'POST').map((s) => [s.body.node_type, s.body.compute_id]), [['vpcs', 'local']]);

    const byName = await sentBy(['node', 'create', 'HUB1', '-t', 'ethernet_hub', '--compute', 'gns3-host']);
    assert.equal(byName.r.code, 0, byName.r.stderr);
    assert.equal(byName.sent.find((s) => s.method === 'POST')!.body.compute_id, 'local');

    const sw = await sentBy(['switch', 'create', 'SW1', '--ports', '4']);
    assert.equal(sw.r.code, 0, sw.r.stderr);
    assert.equal(sw.sent.find((s) => s.method === 'POST')!.body.compute_id, 'local');
    assert.match(sw.r.stdout, /Created switch SW1 .* with 4 ports/);

    // The fake holds GNS3's rule, so a create without compute_id is what GNS3 refuses:
    const raw = await fetch(`${gns3.url}/v2/projects/${[...gns3.projects.keys()][0]}/nodes`, { method: 'POST', body: JSON.stringify({ name: 'X', node_type: 'vpcs' }) });
    assert.equal(raw.status, 400);
    assert.match((await raw.json() as { message: string }).message, /'compute_id' is a required property$/);
  });

  it('demo: its switch and two VPCS are created with compute_id local', async () => {
    const { r, sent } = await sentBy(['demo', '--project', 'demo-on-gns3']);
    // The fake runs no VPCS, so the demo stops when it reaches the consoles; the creates passed.
    assert.notEqual(r.code, 0);
    assert.doesNotMatch(r.stderr, /compute_id/);
    const creates = sent.filter((s) => s.method === 'POST' && /\/nodes$/.test(s.path));
    assert.deepEqual(creates.map((s) => [s.body.name, s.status, s.body.compute_id]), [['SW1', 201, 'local'], ['PC1', 201, 'local'], ['PC2', 201, 'local']]);
    await run('project', 'delete', 'demo-on-gns3');
  });

  it('node list, show, start, stop against GNS3 answers', async () => {
    const list = await ok('node', 'list');
    assert.match(list.stdout, /^NAME +TYPE +STATUS +COMPUTE +CONSOLE +ID\n/);
    assert.match(list.stdout, /\nPC1 +vpcs +stopped +local +127\.0\.0\.1:\d+ /);
    assert.equal(jsonOf(await run('node', 'start', 'PC1', '--json')).status, 'started');
    assert.equal(jsonOf(await run('node', 'show', 'PC1', '--json')).status, 'started');
    assert.equal(jsonOf(await run('node', 'stop', 'PC1', '--json')).status, 'stopped');
    // Through the built bundle too (bin/emuctl.js), as a user runs it.
    const bin = await runBin(['node', 'list', '--json'], env);
    assert.deepEqual(jsonOf(bin).map((n: { name: string }) => n.name).sort(), ['HUB1', 'PC1', 'SW1']);
  });

  it('link create, list, show; filters GNS3 offers are set (PUT answered 201)', async () => {
    await ok('link', 'create', 'PC1:0/0', 'SW1:0/0');
    await ok('link', 'create', 'SW1:0/1', 'HUB1:0/0');
    assert.match((await ok('link', 'list')).stdout, /PC1:0\/0 \(e0\) <-> SW1:0\/0 \(e0\)/);
    const set = await sentBy(['link', 'filter', 'PC1:0/0-SW1:0/0', '--delay', '40', '--jitter', '5', '--loss', '5', '--json']);
    assert.equal(set.r.code, 0, set.r.stderr);
    assert.deepEqual(JSON.parse(set.r.stdout).filters, { delay: [40, 5], packet_loss: [5] });
    assert.deepEqual(set.sent.map((s) => `${s.method} ${s.status}`).filter((s) => s.startsWith('PUT')), ['PUT 201']);
    assert.ok(set.sent.some((s) => s.path.endsWith('/available_filters')), 'available_filters read first');
    assert.deepEqual(jsonOf(await run('link', 'show', 'PC1:0/0-SW1:0/0', '--json')).filters, { delay: [40, 5], packet_loss: [5] });
  });

  it('link filter --rate/--duplicate: not an emuctl daemon, exit 1, one line naming the filters GNS3 offers; nothing sent', async () => {
    for (const flag of ['--rate', '--duplicate']) {
      const { r, sent } = await sentBy(['link', 'filter', 'PC1:0/0-SW1:0/0', flag, '10']);
      assertFails(r, 1, new RegExp(`^emuctl: the ${flag.slice(2)} filter needs an emuctl daemon; ${gns3.url} is GNS3 ${FAKE_GNS3_VERSION}; `
        + `it offers ${GNS3_FILTER_TYPES.join(', ')}\\n$`));
      assert.deepEqual(sent.filter((s) => s.method !== 'GET'), []);
    }
    assert.deepEqual(jsonOf(await run('link', 'show', 'PC1:0/0-SW1:0/0', '--json')).filters, { delay: [40, 5], packet_loss: [5] });
  });

  it('link filter on a link GNS3 filters nothing on (switch to hub): usage error, exit 2, nothing sent', async () => {
    const { r, sent } = await sentBy(['link', 'filter', 'SW1:0/1-HUB1:0/0', '--delay', '10']);
    assertFails(r, 2, /^emuctl: the server does not offer the delay filter on this link; it offers no filters on this link; nothing was changed\n$/);
    assert.deepEqual(sent.filter((s) => s.method !== 'GET'), []);
  });

  it('why: a filter GNS3 does not know stays on the link and breaks every later change, until --clear', async () => {
    const [{ link_id: linkId, project_id: projectId }] = jsonOf(await run('link', 'list', '--json'))
      .filter((l: { nodes: unknown[]; filters: object }) => Object.keys(l.filters).length);
    const put = await fetch(`${gns3.url}/v2/projects/${projectId}/links/${linkId}`, { method: 'PUT', body: JSON.stringify({ filters: { delay: [40, 5], rate: [100] } }) });
    assert.equal(put.status, 409);
    assertFails(await run('link', 'filter', 'PC1:0/0-SW1:0/0', '--loss', '1'), 1, /^emuctl: unknown packet filter type 'rate'\n$/);
    assert.deepEqual(jsonOf(await run('link', 'filter', 'PC1:0/0-SW1:0/0', '--clear', '--delay', '20', '--json')).filters, { delay: [20, 0] });
  });

  it('link suspend and resume', async () => {
    assert.equal(jsonOf(await run('link', 'suspend', 'PC1:0/0-SW1:0/0', '--json')).suspend, true);
    assert.equal(jsonOf(await run('link', 'resume', 'PC1:0/0-SW1:0/0', '--json')).suspend, false);
  });

  it('capture start, list, stop; a capture file name that is a path is refused before anything is sent (exit 2)', async () => {
    for (const name of ['../x.pcap', 'a/b.pcap', '..', 'x\\y.pcap', `a${'\0'}b`]) {
      const { r, sent } = await sentBy(['capture', 'start', 'PC1:0/0-SW1:0/0', '-f', name]);
      assertFails(r, 2, /error: option '-f, --file <name>' argument .* is invalid\. .*(is a path|empty)/);
      assert.deepEqual(sent, [], `nothing sent for ${JSON.stringify(name)}`);
    }
    const started = await ok('capture', 'start', 'PC1:0/0-SW1:0/0', '-f', 'lab.pcap', '--json');
    assert.equal(JSON.parse(started.stdout).capture_file_name, 'lab.pcap');
    assert.equal(gns3.sent('POST', /start_capture$/).at(-1)!.body.capture_file_name, 'lab.pcap');
    assert.match((await ok('capture', 'list')).stdout, /PC1:0\/0-SW1:0\/0 .*lab\.pcap/);
    await ok('capture', 'stop', 'PC1:0/0-SW1:0/0');
  });

  it('switch show: ports and VLANs from GNS3, and one line saying counters need an emuctl daemon (no raw 404)', async () => {
    const r = await run('switch', 'show', 'SW1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Ethernet0/);
    assert.equal(r.stderr, `warning: no port counters for SW1: port counters need an emuctl daemon; ${gns3.url} is GNS3 ${FAKE_GNS3_VERSION}\n`);
    assert.equal(JSON.parse((await ok('switch', 'show', 'SW1', '--json')).stdout).stats, null);
  });

  it('switch mac-table: not an emuctl daemon, exit 1, one line (never the bare 404)', async () => {
    const r = await run('switch', 'mac-table', 'SW1');
    assertFails(r, 1, new RegExp(`^emuctl: switch mac-table needs an emuctl daemon; ${gns3.url} is GNS3 ${FAKE_GNS3_VERSION}\\n$`));
    assert.ok(gns3.sent('GET', /mac_table$/).every((s) => s.status === 404), 'the route is one GNS3 does not have');
  });

  it('compute list and show; version', async () => {
    assert.match((await ok('compute', 'list')).stdout, /gns3-host/);
    assert.equal(jsonOf(await run('compute', 'show', 'local', '--json')).name, 'gns3-host');
    assert.match((await ok('version')).stdout, new RegExp(`server: +GNS3 ${FAKE_GNS3_VERSION.replace(/\./g, '\\.')}`));
  });

  it('template list, show, create (GNS3 fills in its type\'s defaults), delete; a built-in one cannot be deleted', async () => {
    const list = await ok('template', 'list');
    assert.match(list.stdout, /^VPCS +vpcs +guest +yes +PC\{0\} +\(any\) +19021f99-e36f-394d-b4a1-8aaa902ab9cc$/m);
    assert.match(list.stdout, /^Cloud +cloud +guest +yes /m);
    const created = await sentBy(['template', 'create', 'Edge', '-t', 'ethernet_switch', '--name-format', 'Edge{0}', '--json']);
    assert.equal(created.r.code, 0, created.r.stderr);
    assert.deepEqual(created.sent.filter((s) => s.method === 'POST').map((s) => [s.status, s.body.compute_id]), [[201, 'local']]);
    const template = JSON.parse(created.r.stdout);
    assert.deepEqual([template.builtin, template.console_type, template.ports_mapping.length, template.category], [false, 'none', 8, 'switch']);
    assert.match((await ok('template', 'show', 'Edge')).stdout, /^type: +ethernet_switch$/m);
    assertFails(await run('template', 'create', 'Bad', '-t', 'vpcs', '--set', 'colour=red'), 1, /^emuctl: JSON schema error adding template .*Additional properties are not allowed \('colour' was unexpected\)\n$/);
    assertFails(await run('template', 'delete', 'VPCS'), 1, /^emuctl: Template ID 19021f99-e36f-394d-b4a1-8aaa902ab9cc cannot be deleted because it is a builtin\n$/);
  });

  it('node create --template: the server names the node from default_name_format; compute_id local is sent', async () => {
    const { r, sent } = await sentBy(['node', 'create', 'PC{0}', '--template', 'VPCS', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sent.filter((s) => s.method === 'POST').map((s) => [s.path.replace(/^.*\/templates\//, 'templates/'), s.status, s.body.compute_id]),
      [['templates/19021f99-e36f-394d-b4a1-8aaa902ab9cc', 201, 'local']]);
    const pc = JSON.parse(r.stdout);
    assert.deepEqual([pc.name, pc.node_type, pc.template_id], ['PC2', 'vpcs', '19021f99-e36f-394d-b4a1-8aaa902ab9cc'], 'PC1 is taken: GNS3 allocates PC2');
    const edge = jsonOf(await run('node', 'create', 'Edge{0}', '-T', 'Edge', '--json'));
    assert.deepEqual([edge.name, edge.node_type], ['Edge1', 'ethernet_switch']);
    await ok('node', 'delete', 'PC2');
    await ok('node', 'delete', 'Edge1');
    await ok('template', 'delete', 'Edge');
  });

  it('project snapshot create, list, restore, delete; a running node keeps GNS3 from taking one', async () => {
    await ok('node', 'start', 'PC1');
    assertFails(await run('project', 'snapshot', 'create', 'running'), 1, /^emuctl: Project must be stopped in order to export it\n$/);
    await ok('node', 'stop', 'PC1');
    await ok('project', 'snapshot', 'create', 'before');
    assertFails(await run('project', 'snapshot', 'create', 'before'), 1, /^emuctl: The snapshot name before already exists\n$/);
    await ok('node', 'create', 'Later', '-t', 'ethernet_hub');
    assert.match((await ok('project', 'snapshot', 'list')).stdout, /^before +\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ +[0-9a-f-]{36}$/m);
    await ok('project', 'snapshot', 'restore', 'before');
    assert.equal(gns3.sent('POST', /\/restore$/).at(-1)!.status, 201);
    const names = jsonOf(await run('node', 'list', '--json')).map((n: { name: string }) => n.name).sort();
    assert.deepEqual(names, ['HUB1', 'PC1', 'SW1'], 'the topology is the snapshot\'s');
    await ok('project', 'snapshot', 'delete', 'before');
    assert.equal((await ok('project', 'snapshot', 'list')).stdout, 'no snapshots of project lab\n');
  });

  it('project export, import (GNS3 reads the ZIP), duplicate (GNS3 requires a name: the CLI sends the project\'s)', async () => {
    const file = join(home, 'lab.gns3project');
    await ok('project', 'export', 'lab', '-o', file);
    assert.ok(existsSync(file));
    const imported = jsonOf(await run('project', 'import', file, '--json'));
    assert.deepEqual([imported.name, imported.status], ['lab-1', 'closed'], 'GNS3 gives the copy a free name');
    const dup = await sentBy(['project', 'duplicate', 'lab', '--json']);
    assert.equal(dup.r.code, 0, dup.r.stderr);
    assert.deepEqual(dup.sent.filter((s) => s.method === 'POST').map((s) => [s.status, s.body.name]), [[201, 'lab']]);
    assert.equal(JSON.parse(dup.r.stdout).name, 'lab-2');
    writeFileSync(join(home, 'junk.gns3project'), 'not a zip');
    assertFails(await run('project', 'import', join(home, 'junk.gns3project')), 1, /^emuctl: Cannot import project, not a GNS3 project \(invalid zip\)\n$/);
    for (const name of ['lab-1', 'lab-2']) await ok('project', 'delete', name);
  });

  it('delete: link, node, switch, project', async () => {
    await ok('link', 'delete', 'PC1:0/0-SW1:0/0');
    await ok('node', 'delete', 'PC1');
    await ok('switch', 'delete', 'SW1');
    await ok('project', 'delete', 'lab');
    assert.deepEqual(jsonOf(await run('project', 'list', '--json')), []);
  });
});
