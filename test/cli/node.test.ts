// `emuctl node …` run against a real daemon: stdout, stderr and exit code of every verb,
// switches and hubs for most, and one real VPCS (start, status, console, stop).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createContext } from '../../src/cli/context.js';
import { OperationError } from '../../src/cli/errors.js';
import { runNodeConsole } from '../../src/commands/node/console.js';
import { BufferOutput } from '../../src/render/buffer-output.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { cliEnv, removeTempHome, runInProcess, tempHome, assertFails, jsonOf, startCliDaemon, stopCliDaemon } from './helpers/cli.js';
import { UUID_TEXT } from '../../src/util/uuid.js';

const UUID = UUID_TEXT;
// Ranges no other test file uses (link.test.ts has 32150-32299 and 26050-26099).
const PORT_RANGES = { EMUCTL_UDP_PORT_RANGE: '32000-32099', EMUCTL_CONSOLE_PORT_RANGE: '26000-26039', EMUCTL_NAT_SUBNET: '198.18.30.0/24' };


describe('node commands against the daemon', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let projectId: string;
  const run = (...argv: string[]) => runInProcess(argv, env);
  const nodes = async () => (await daemon.api('GET', `/v2/projects/${projectId}/nodes`)).body as any[];

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon({ env: PORT_RANGES }));
    const created = await run('project', 'create', 'lab', '--use', '--json');
    projectId = JSON.parse(created.stdout).project_id;
  });
  after(() => stopCliDaemon({ daemon, home }));

  it('node list: says so when the project has none', async () => {
    const r = await run('node', 'list');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'no nodes in project lab\n', '']);
    assert.deepEqual(jsonOf(await run('node', 'ls', '--json')), []);
  });

  it('node create: a switch and a hub, confirmed on stdout; --json is the node', async () => {
    const sw = await run('node', 'create', 'SW1', '--type', 'ethernet_switch');
    assert.equal(sw.code, 0, sw.stderr);
    assert.match(sw.stdout, new RegExp(`^✓ Created ethernet_switch SW1 \\(${UUID}\\) on compute local\\n$`));
    const hub = jsonOf(await run('node', 'create', 'HUB1', '-t', 'ethernet_hub', '--json'));
    assert.equal(hub.name, 'HUB1');
    assert.equal(hub.node_type, 'ethernet_hub');
    assert.deepEqual(hub, (await daemon.api('GET', `/v2/projects/${projectId}/nodes/${hub.node_id}`)).body);
  });

  it('node create --type cloud --interface and --type nat: the node and its ports; --interface needs a cloud', async () => {
    const tap = `ecli${process.pid % 10000}`;
    const cloud = jsonOf(await run('node', 'create', 'Cloud1', '--type', 'cloud', '--interface', `tap:${tap}`, '--interface', 'eth9', '--json'));
    assert.deepEqual(cloud.properties.ports_mapping, [
      { name: tap, port_number: 0, type: 'tap', interface: tap },
      { name: 'eth9', port_number: 1, type: 'ethernet', interface: 'eth9' },
    ]);
    assert.deepEqual(cloud.ports.map((p: any) => p.name), [tap, 'eth9']);
    // A cloud on the loopback loops its own tunnels (issue 26): the daemon refuses it, in one line.
    assertFails(await run('node', 'create', 'Cloud9', '--type', 'cloud', '--interface', 'lo'), 1, /^emuctl: .*interface lo is the host's loopback[^\n]*\n$/);
    const nat = await run('node', 'create', 'NAT1', '--type', 'nat');
    assert.equal(nat.code, 0, nat.stderr);
    assert.match(nat.stdout, new RegExp(`^✓ Created nat NAT1 \\(${UUID}\\) on compute local\\n$`));
    assertFails(await run('node', 'create', 'PC9', '--type', 'vpcs', '--interface', 'eth0'), 2, /^emuctl: --interface needs --type cloud\n$/);
    assertFails(await run('node', 'create', 'C9', '--type', 'cloud', '--interface', 'tap:a/b'), 2, /^emuctl: --interface tap:a\/b: an interface name is 1-15 characters/);
    for (const n of await nodes()) if (n.node_type === 'cloud' || n.node_type === 'nat') assert.equal((await daemon.api('DELETE', `/v2/projects/${projectId}/nodes/${n.node_id}`)).status, 204);
  });

  it('node create --compute: by id or by name; an unknown compute lists the known ones', async () => {
    const byId = jsonOf(await run('node', 'create', 'SW2', '-t', 'ethernet_switch', '--compute', 'local', '--json'));
    assert.equal(byId.compute_id, 'local');
    const [local] = (await daemon.api('GET', '/v2/computes')).body;
    const byName = jsonOf(await run('node', 'create', 'SW3', '-t', 'ethernet_switch', '-c', local.name, '--json'));
    assert.equal(byName.compute_id, 'local');
    assertFails(await run('node', 'create', 'SW4', '-t', 'ethernet_switch', '--compute', 'nowhere'), 1,
      /^emuctl: no compute matches "nowhere"; known: .*\(local\)\n$/);
  });

  it('node create: a taken name gets the next free one with a warning; errors from the server are one line, exit 1; usage errors exit 2', async () => {
    const taken = await run('node', 'create', 'SW1', '--type', 'ethernet_switch', '--json');
    assert.equal(taken.code, 0, taken.stderr);
    const renamed = JSON.parse(taken.stdout);
    assert.match(renamed.name, /^SW\d+$/);
    assert.notEqual(renamed.name, 'SW1');
    assert.match(taken.stderr, new RegExp(`^warning: 'SW1' is taken in this project; the server named the node ${renamed.name}\n$`), 'a taken name is renamed, as GNS3 does, and the CLI says so');
    assert.equal((await daemon.api('DELETE', `/v2/projects/${projectId}/nodes/${renamed.node_id}`)).status, 204);
    assertFails(await run('node', 'create', 'R1', '--type', 'router'), 1, /^emuctl: Unknown node_type 'router' \(known: ethernet_switch, ethernet_hub, vpcs, qemu, docker, cloud, nat\)\n$/);
    assertFails(await run('node', 'create', 'PC9', '--type', 'vpcs', '--ram', '128'), 2, /^emuctl: --image, --ram, --kernel and the other QEMU options need --type qemu \(--image and --adapters also --type docker\)\n$/);
    assertFails(await run('node', 'create', 'R1'), 2, /^emuctl: give the node a --type or a --template \(one of the two\)\n$/);
    assertFails(await run('node', 'create', 'R1', '-t', 'vpcs', '-T', 'VPCS'), 2, /--type or a --template/);
    assertFails(await run('node', 'create', 'R1', '-t', 'vpcs', '--project', 'nolab'), 1, /^emuctl: no project matches "nolab"; known: lab /);
    const otherHome = tempHome();
    const noDefault = await runInProcess(['node', 'list'], cliEnv(otherHome, { EMUCTL_URL: daemon.url }));
    removeTempHome(otherHome);
    assertFails(noDefault, 2, /^emuctl: no project given: pass --project P, or choose one with 'emuctl project use P'\n$/);
  });

  it('node list: a table sorted by name; --json is the server\'s array untouched', async () => {
    const r = await run('node', 'list');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^NAME +TYPE +STATUS +COMPUTE +CONSOLE +ID$/);
    assert.deepEqual(lines.slice(1).map((l) => l.split(/ +/).slice(0, 5)), [
      ['HUB1', 'ethernet_hub', 'started', 'local', '-'],
      ['SW1', 'ethernet_switch', 'started', 'local', '-'],
      ['SW2', 'ethernet_switch', 'started', 'local', '-'],
      ['SW3', 'ethernet_switch', 'started', 'local', '-'],
    ]);
    assert.match(lines[2], new RegExp(`  ${UUID}$`));
    assert.deepEqual(jsonOf(await run('node', 'list', '--json', '-p', 'lab')), await nodes());
  });

  it('node show: by name or UUID prefix, with its ports and their links; no match lists the nodes, exit 1', async () => {
    const sw1 = (await nodes()).find((n) => n.name === 'SW1');
    const hub = (await nodes()).find((n) => n.name === 'HUB1');
    await daemon.api('POST', `/v2/projects/${projectId}/links`, { nodes: [
      { node_id: sw1.node_id, adapter_number: 0, port_number: 2 }, { node_id: hub.node_id, adapter_number: 0, port_number: 0 }] });
    const r = await run('node', 'show', 'SW1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^name: +SW1\\nid: +${sw1.node_id}\\ntype: +ethernet_switch\\nstatus: +started\\ncompute: +local\\nconsole: +-\\n`));
    assert.match(r.stdout, /\nports: +0\/0 +Ethernet0 +-\n +0\/1 +Ethernet1 +-\n +0\/2 +Ethernet2 +-> HUB1:0\/0\n/);
    assert.equal(r.stdout.trimEnd().split('\n').length, 6 + 8);
    assert.deepEqual(jsonOf(await run('node', 'show', sw1.node_id.slice(0, 8), '--json')), sw1);
    assertFails(await run('node', 'show', 'SW9'), 1, /^emuctl: no node matches "SW9"; known: SW1 \(/);
  });

  it('node start / stop: one node or --all; usage errors without a node or with both', async () => {
    const stopped = await run('node', 'stop', 'SW2');
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, new RegExp(`^✓ Stopped SW2 \\(${UUID}\\)\\n$`));
    assert.equal(jsonOf(await run('node', 'start', 'SW2', '--json')).status, 'started');
    const all = await run('node', 'stop', '--all');
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(all.stdout.trimEnd().split('\n').map((l) => l.replace(/ \(.*\)$/, '')), ['✓ Stopped HUB1', '✓ Stopped SW1', '✓ Stopped SW2', '✓ Stopped SW3']);
    const started = jsonOf(await run('node', 'start', '-a', '--json'));
    assert.deepEqual(started.map((n: { name: string; status: string }) => [n.name, n.status]),
      [['HUB1', 'started'], ['SW1', 'started'], ['SW2', 'started'], ['SW3', 'started']]);
    assertFails(await run('node', 'start'), 2, /^emuctl: missing node: give a node name, or --all to start every node\n$/);
    assertFails(await run('node', 'stop', 'SW1', '--all'), 2, /^emuctl: give a node or --all, not both\n$/);
    assertFails(await run('node', 'start', 'nope'), 1, /^emuctl: no node matches "nope"/);
  });

  it('node console: a switch has none, exit 1', async () => {
    assertFails(await run('node', 'console', 'SW1'), 1, /^emuctl: node SW1 \(ethernet_switch\) has no console\n$/);
  });

  it('node delete (alias rm): removes it and its links; -q prints nothing', async () => {
    const r = await run('node', 'rm', 'HUB1', '-q');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    assert.deepEqual((await daemon.api('GET', `/v2/projects/${projectId}/links`)).body, []);
    const json = jsonOf(await run('node', 'delete', 'SW3', '--json'));
    assert.deepEqual(Object.keys(json), ['deleted', 'node_id', 'name']);
    assert.deepEqual((await nodes()).map((n) => n.name).sort(), ['SW1', 'SW2']);
    assertFails(await run('node', 'delete', 'SW3'), 1, /^emuctl: no node matches "SW3"/);
  });

  it('a closed project: the server refuses changes, exit 1 with its message; its nodes are listed from its file (stopped)', async () => {
    await run('project', 'create', 'shut');
    await run('node', 'create', 'HUBX', '-t', 'ethernet_hub', '-p', 'shut');
    await run('project', 'close', 'shut');
    assertFails(await run('node', 'create', 'X', '-t', 'ethernet_hub', '-p', 'shut'), 1, /^emuctl: Project 'shut' is closed: open it first\n$/);
    const listed = jsonOf(await run('node', 'list', '-p', 'shut', '--json'));
    assert.deepEqual(listed.map((n: any) => [n.name, n.status]), [['HUBX', 'stopped']]);
  });

  it('a real VPCS: start, status started, console host:port printed, a terminal session, stop', async () => {
    const created = jsonOf(await run('node', 'create', 'PC1', '--type', 'vpcs', '--json'));
    assert.equal(created.console_type, 'telnet');
    const port = created.console as number;
    assert.ok(port >= 26000 && port <= 26039, `console ${port} in EMUCTL_CONSOLE_PORT_RANGE`);

    // Stopped: the address is printed all the same, with a hint on stderr.
    const early = await run('node', 'console', 'PC1');
    assert.deepEqual([early.code, early.stdout], [0, `127.0.0.1:${port}\n`]);
    assert.equal(early.stderr, "PC1 is stopped: start it with 'emuctl node start PC1'\n");

    const started = await run('node', 'start', 'PC1');
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stdout, new RegExp(`^✓ Started PC1 \\(${UUID}\\), console 127\\.0\\.0\\.1:${port}\\n$`));
    const shown = await run('node', 'show', 'PC1');
    assert.match(shown.stdout, new RegExp(`\\nstatus: +started\\n.*\\nconsole: +127\\.0\\.0\\.1:${port}\\nports: +0/0 +Ethernet0 +-\\n`, 's'));
    assert.match((await run('node', 'list')).stdout, new RegExp(`\\nPC1 +vpcs +started +local +127\\.0\\.0\\.1:${port} +${UUID}\\n`));

    const printed = await run('node', 'console', 'PC1');
    assert.deepEqual([printed.code, printed.stdout, printed.stderr], [0, `127.0.0.1:${port}\n`, `connect with: telnet 127.0.0.1 ${port}\n`]);
    assert.deepEqual(jsonOf(await run('node', 'console', 'PC1', '--json')),
      { node_id: created.node_id, name: 'PC1', console_type: 'telnet', console_host: '127.0.0.1', console: port });

    // On a terminal: raw mode, keys to the console, its output on the screen, Ctrl-] quits, terminal restored.
    const input = Object.assign(new PassThrough(), { isTTY: true, rawModes: [] as boolean[], setRawMode(raw: boolean) { input.rawModes.push(raw); return input; } });
    const output = Object.assign(new PassThrough(), { isTTY: true });
    let screen = Buffer.alloc(0);
    output.on('data', (chunk: Buffer) => { screen = Buffer.concat([screen, chunk]); });
    const until = async (text: string) => {
      for (const deadline = Date.now() + 10_000; !screen.toString('latin1').includes(text); await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() > deadline) assert.fail(`no "${text}" on the console: ${JSON.stringify(screen.toString('latin1'))}`);
      }
    };
    const out = new BufferOutput({ env });
    const ctx = createContext(out, env, { json: false, color: false, quiet: false, debug: false });
    const session = runNodeConsole({ node: 'PC1', print: false, websocket: false }, ctx, { input, output });
    await until('PC1> ');
    input.write('show ip\r');
    await until('MAC');
    input.write(Buffer.from([0x1d]));
    await session;
    assert.deepEqual(input.rawModes, [true, false]);
    assert.ok(!screen.includes(0xff), 'no telnet negotiation on the screen');
    assert.match(screen.toString('latin1'), /NAME +: PC1/);
    assert.equal(out.stdoutText(), '');
    assert.equal(out.stderrText(), `Connected to PC1 console at 127.0.0.1:${port}. Press Ctrl-] to quit.\n\nDisconnected from PC1.\n`);

    const stopped = jsonOf(await run('node', 'stop', 'PC1', '--json'));
    assert.equal(stopped.status, 'stopped');
    assert.match((await run('node', 'show', 'PC1')).stdout, /\nstatus: +stopped\n/);
    // Connecting to a stopped node on a terminal is refused.
    await assert.rejects(runNodeConsole({ node: 'PC1', print: false, websocket: false }, ctx, { input, output }),
      (err) => err instanceof OperationError && err.message === "node PC1 is stopped: start it with 'emuctl node start PC1'");
    assert.deepEqual(input.rawModes, [true, false], 'the terminal was not touched');
  });
});

describe('node create --compute on a remote compute', () => {
  let controller: TestDaemon;
  let compute: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const run = (...argv: string[]) => runInProcess(argv, env);

  before(async () => {
    [controller, compute] = await Promise.all([
      startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '32100-32124', EMUCTL_CONSOLE_PORT_RANGE: '26040-26044' } }),
      startTestDaemon({ flags: { role: 'compute' }, env: { EMUCTL_UDP_PORT_RANGE: '32125-32149', EMUCTL_CONSOLE_PORT_RANGE: '26045-26049' } }),
    ]);
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: controller.url });
    const added = await controller.api('POST', '/v2/computes', { name: 'edge', protocol: 'http', host: '127.0.0.1', port: compute.port });
    assert.equal(added.status, 201, added.text);
    assert.equal((await run('project', 'create', 'wan', '--use')).code, 0);
  });
  after(async () => {
    await Promise.all([controller.stop(), compute.stop()]);
    removeHome(controller.home);
    removeHome(compute.home);
    removeTempHome(home);
  });

  it('places the node on the compute named; list and show name the compute', async () => {
    const [edge] = (await controller.api('GET', '/v2/computes')).body.filter((c: { name: string }) => c.name === 'edge');
    const r = await run('node', 'create', 'RSW', '--type', 'ethernet_switch', '--compute', 'edge');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^✓ Created ethernet_switch RSW \\(${UUID}\\) on compute ${edge.compute_id}\\n$`));
    await run('node', 'create', 'LSW', '--type', 'ethernet_switch');
    const lines = (await run('node', 'list')).stdout.trimEnd().split('\n');
    assert.deepEqual(lines.slice(1).map((l) => l.split(/ +/).slice(0, 4)), [
      ['LSW', 'ethernet_switch', 'started', 'local'],
      ['RSW', 'ethernet_switch', 'started', 'edge'],
    ]);
    assert.match((await run('node', 'show', 'RSW')).stdout, /\ncompute: +edge\n/);
    const nodes = (await compute.api('GET', '/v2/compute/projects')).body;
    assert.ok(Array.isArray(nodes) && nodes.length === 1, 'the project now exists on the remote compute');
  });
});
