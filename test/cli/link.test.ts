// `emuctl link …` run against a real daemon: stdout, stderr and exit code of every verb,
// links named by UUID, prefix and ends, filters merged and checked, suspend and resume.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestDaemon } from '../helpers/daemon.js';
import { runInProcess, assertFails, jsonOf, startCliDaemon, stopCliDaemon } from './helpers/cli.js';
import { UUID_TEXT } from '../../src/util/uuid.js';

const UUID = UUID_TEXT;
// Ranges no other test file uses (node.test.ts has 32000-32149 and 26000-26049).
const PORT_RANGES = { EMUCTL_UDP_PORT_RANGE: '32150-32299', EMUCTL_CONSOLE_PORT_RANGE: '26050-26099' };


describe('link commands against the daemon', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let projectId: string;
  const run = (...argv: string[]) => runInProcess(argv, env);
  const links = async () => (await daemon.api('GET', `/v2/projects/${projectId}/links`)).body as any[];
  const linkBody = async (id: string) => (await daemon.api('GET', `/v2/projects/${projectId}/links/${id}`)).body;
  const filtersOf = async (id: string) => (await linkBody(id)).filters;
  /** The link between H1's port 0 and SW1's port 0, created in the first tests. */
  let hubLink: string;

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon({ env: PORT_RANGES }));
    projectId = JSON.parse((await run('project', 'create', 'lab', '--use', '--json')).stdout).project_id;
    for (const [name, type] of [['SW1', 'ethernet_switch'], ['SW2', 'ethernet_switch'], ['H1', 'ethernet_hub'], ['core-sw', 'ethernet_switch']]) {
      const r = await run('node', 'create', name, '--type', type);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(() => stopCliDaemon({ daemon, home }));

  it('link list: says so when the project has none', async () => {
    const r = await run('link', 'list');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'no links in project lab\n', '']);
    assert.deepEqual(jsonOf(await run('link', 'ls', '--json')), []);
  });

  it('link create: ADAPTER/PORT, PORT, port names and short names; --json is the link', async () => {
    const r = await run('link', 'create', 'H1:0/0', 'SW1:0/0');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^✓ Created link H1:0/0 \\(e0\\) <-> SW1:0/0 \\(e0\\) \\((${UUID})\\)\\n$`));
    hubLink = /\((\S+)\)\n$/.exec(r.stdout)![1];
    const byNumber = jsonOf(await run('link', 'create', 'SW1:1', 'SW2:0', '--json'));
    assert.deepEqual(byNumber, await linkBody(byNumber.link_id));
    assert.deepEqual(byNumber.nodes.map((e: any) => [e.adapter_number, e.port_number]), [[0, 1], [0, 0]]);
    const byName = jsonOf(await run('link', 'create', 'SW2:Ethernet7', 'core-sw:e3', '--json'));
    assert.deepEqual(byName.nodes.map((e: any) => [e.adapter_number, e.port_number]), [[0, 7], [0, 3]]);
  });

  it('link create: a malformed end is a usage error (exit 2); unknown nodes and ports and taken ports fail (exit 1)', async () => {
    assertFails(await run('link', 'create', 'SW1', 'SW2:1'), 2, /^emuctl: "SW1" is not a link end: expected NODE:ADAPTER\/PORT, NODE:PORT or NODE:PORT-NAME/);
    assertFails(await run('link', 'create', 'SW1:2'), 2, /missing required argument 'b'/);
    assertFails(await run('link', 'create', 'SW9:0', 'SW2:1'), 1, /^emuctl: no node matches "SW9"; known: SW1 \(/);
    assertFails(await run('link', 'create', 'SW1:Ethernet42', 'SW2:1'), 1, /^emuctl: node SW1 has no port named "Ethernet42"; its ports: Ethernet0 \(0\/0\), /);
    assertFails(await run('link', 'create', 'SW1:0/42', 'SW2:1'), 1, /^emuctl: Port 0\/42 doesn't exist on node SW1\n$/);
    assertFails(await run('link', 'create', 'SW1:0', 'SW2:1'), 1, /^emuctl: Port 0\/0 of SW1 is already connected\n$/);
    assertFails(await run('link', 'create', 'SW1:5', 'SW1:0/5'), 1, /^emuctl: Cannot connect to itself\n$/);
    assert.equal((await links()).length, 3, 'nothing was created');
  });

  it('link list: ends with port names, filters, suspended, capturing; --json is the server\'s array untouched', async () => {
    const r = await run('link', 'list');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^ID +ENDS +FILTERS +SUSPENDED +CAPTURING$/);
    assert.deepEqual(lines.slice(1).map((l) => l.replace(new RegExp(`^${UUID} +`), '').split(/  +/)), [
      ['H1:0/0 (e0) <-> SW1:0/0 (e0)', '-', 'no', 'no'],
      ['SW1:0/1 (e1) <-> SW2:0/0 (e0)', '-', 'no', 'no'],
      ['SW2:0/7 (e7) <-> core-sw:0/3 (e3)', '-', 'no', 'no'],
    ]);
    assert.deepEqual(jsonOf(await run('link', 'list', '--json')), await links());
  });

  it('link show: by UUID, prefix, ends in either order, one end; --json is the link', async () => {
    const refs = [hubLink, hubLink.slice(0, 6), 'H1:0/0-SW1:0/0', 'SW1:0/0-H1:0/0', 'SW1:0-H1:0', 'H1:e0-SW1:Ethernet0', 'H1:0/0 <-> SW1:0/0', 'H1:0'];
    for (const ref of refs) {
      const r = await run('link', 'show', ref);
      assert.equal(r.code, 0, `${ref}: ${r.stderr}`);
      assert.equal(r.stdout, `id:         ${hubLink}\nname:       H1:0/0-SW1:0/0\nends:       H1:0/0 (e0) <-> SW1:0/0 (e0)\n`
        + 'type:       ethernet\nfilters:    -\nsuspended:  no\ncapturing:  no\n', ref);
    }
    const dashed = jsonOf(await run('link', 'show', 'core-sw:3-SW2:7', '--json'));
    assert.deepEqual(dashed, (await links()).find((l) => l.nodes.some((e: any) => e.port_number === 3)));
    assert.deepEqual(jsonOf(await run('link', 'show', hubLink, '--json')), await linkBody(hubLink));
  });

  it('link show: no such link says why, exit 1', async () => {
    assertFails(await run('link', 'show', 'H1:0-SW1:4'), 1, /^emuctl: no link connects H1:0\/0 and SW1:0\/4; links: H1:0\/0-SW1:0\/0, SW1:0\/1-SW2:0\/0, SW2:0\/7-core-sw:0\/3\n$/);
    assertFails(await run('link', 'show', 'SW1'), 1, /^emuctl: no link matches "SW1"; known: H1:0\/0-SW1:0\/0 \(/);
    assertFails(await run('link', 'show', 'SW9:0-SW1:0'), 1, /^emuctl: no node matches "SW9"/);
  });

  it('link filter: sets, merges, turns off with 0; the server gets the whole set', async () => {
    const r = await run('link', 'filter', 'H1:0/0-SW1:0/0', '--delay', '100', '--loss', '5');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `✓ Filters of link H1:0/0-SW1:0/0 (${hubLink}): delay 100ms, loss 5%\n`);
    assert.deepEqual(await filtersOf(hubLink), { delay: [100, 0], packet_loss: [5] });
    await run('link', 'filter', hubLink, '--jitter', '5', '--corrupt', '1', '--frequency-drop', '-1', '--bpf', 'icmp', '--bpf', 'arp');
    assert.deepEqual(await filtersOf(hubLink), { delay: [100, 5], packet_loss: [5], corrupt: [1], frequency_drop: [-1], bpf: ['icmp\narp'] });
    await run('link', 'filter', 'SW1:0-H1:0', '--loss', '0', '--frequency-drop', '0', '--bpf', '', '--rate', '2000', '--duplicate', '3');
    assert.deepEqual(await filtersOf(hubLink), { delay: [100, 5], corrupt: [1], rate: [2000], duplicate: [3] });
    const listed = (await run('link', 'list')).stdout.split('\n').find((l) => l.startsWith(hubLink))!;
    assert.match(listed, / delay 100±5ms, corrupt 1%, rate 2000kbit\/s, duplicate 3% +no +no$/);
    assert.match((await run('link', 'show', hubLink)).stdout, /\nfilters: +delay 100±5ms, corrupt 1%, rate 2000kbit\/s, duplicate 3%\n/);
  });

  it('link filter --clear: removes them all, then applies the other options; --json is the link', async () => {
    const cleared = jsonOf(await run('link', 'filter', hubLink, '--clear', '--json'));
    assert.deepEqual(cleared.filters, {});
    assert.deepEqual(cleared, await linkBody(hubLink));
    const r = await run('link', 'filter', hubLink, '--clear', '--delay', '20');
    assert.equal(r.stdout, `✓ Filters of link H1:0/0-SW1:0/0 (${hubLink}): delay 20ms\n`);
    assert.equal((await run('link', 'filter', hubLink, '--delay', '0')).stdout, `✓ Filters of link H1:0/0-SW1:0/0 (${hubLink}): none\n`);
  });

  it('link filter: numbers are checked here (exit 2); the server\'s limits and BPF syntax there (exit 1)', async () => {
    await run('link', 'filter', hubLink, '--loss', '7');
    for (const bad of [['--loss', '101'], ['--delay', 'abc'], ['--jitter', '-3'], ['--frequency-drop', '-2'], ['--rate', '1.5']]) {
      assertFails(await run('link', 'filter', hubLink, ...bad), 2, new RegExp(`^error: option '${bad[0]} <[a-z]+>' argument '${bad[1]}' is invalid\\. expected `));
    }
    assertFails(await run('link', 'filter', hubLink, '--jitter', '5'), 2, /^emuctl: --jitter varies a delay, and the link has none: add --delay MS\n$/);
    assertFails(await run('link', 'filter', hubLink), 2, /^emuctl: nothing to change: give a filter option .* or --clear\n$/);
    assertFails(await run('link', 'filter', hubLink, '--delay', '40000'), 1, /^emuctl: filters\.delay: Latency 40000 is out of range 0\.\.32767\n$/);
    assertFails(await run('link', 'filter', hubLink, '--bpf', 'icmpp and'), 1, /^emuctl: .*can't parse filter expression.*\n$/);
    assertFails(await run('link', 'filter', 'SW1:6', '--loss', '1'), 1, /^emuctl: no link on SW1:0\/6; links: /);
    assert.deepEqual(await filtersOf(hubLink), { packet_loss: [7] }, 'a refused change changes nothing');
  });

  it('link suspend / resume: the flag in the link, the list and show', async () => {
    const r = await run('link', 'suspend', 'SW2:0-SW1:1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^✓ Suspended link SW1:0/1-SW2:0/0 \\(${UUID}\\): it drops every frame\\n$`));
    const suspended = (await links()).find((l) => l.nodes.some((e: any) => e.port_number === 1));
    assert.equal(suspended.suspend, true);
    assert.match((await run('link', 'list')).stdout, /SW1:0\/1 \(e1\) <-> SW2:0\/0 \(e0\) +- +yes +no\n/);
    assert.match((await run('link', 'show', suspended.link_id)).stdout, /\nsuspended: +yes\n/);
    const resumed = jsonOf(await run('link', 'resume', suspended.link_id.slice(0, 8), '--json'));
    assert.equal(resumed.suspend, false);
    assert.deepEqual(resumed, await linkBody(suspended.link_id));
    assert.match((await run('link', 'resume', 'SW1:1-SW2:0')).stdout, /^✓ Resumed link SW1:0\/1-SW2:0\/0 \(/);
    assertFails(await run('link', 'suspend', 'nolink'), 1, /^emuctl: no link matches "nolink"/);
  });

  it('link delete (alias rm): by ends or UUID; the ports are free again', async () => {
    const r = await run('link', 'delete', 'SW1:0/0-H1:0/0');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `✓ Deleted link H1:0/0-SW1:0/0 (${hubLink})\n`);
    const json = jsonOf(await run('link', 'rm', 'core-sw:3-SW2:7', '--json'));
    assert.deepEqual([json.deleted, json.name], [true, 'SW2:0/7-core-sw:0/3']);
    assert.equal((await links()).length, 1);
    assertFails(await run('link', 'delete', hubLink), 1, /^emuctl: no link matches /);
    assert.equal((await run('link', 'create', 'H1:0', 'SW1:0')).code, 0, 'the ports are free again');
  });

  it('--json: only JSON on stdout for every verb', async () => {
    const [id] = (await links()).map((l) => l.link_id);
    for (const argv of [['link', 'list'], ['link', 'show', id], ['link', 'filter', id, '--loss', '2'], ['link', 'suspend', id],
      ['link', 'resume', id], ['link', 'create', 'SW2:5', 'SW1:5'], ['link', 'delete', 'SW2:5-SW1:5']]) {
      const r = await run(...argv, '--json');
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, '', argv.join(' '));
      assert.doesNotThrow(() => JSON.parse(r.stdout), argv.join(' '));
    }
  });
});
