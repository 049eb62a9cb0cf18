// `emuctl compute …` run against real daemons: a controller, a compute-only daemon and one needing auth.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { cliEnv, removeTempHome, runInProcess, tempHome, type CliResult, assertFails, jsonOf } from './helpers/cli.js';

/**
 * Asserts a failed run: the exit code, nothing on stdout, and one line on stderr matching
 * `message` (commander's usage errors, exit 2, add a second line: "(add --help for usage)").
 */

const stdin = (text: string) => Readable.from([Buffer.from(text)]);
const SECRET = 's3cret-pw';

describe('compute commands against the daemon', () => {
  let controller: TestDaemon;
  let remote: TestDaemon;
  let guarded: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const run = (...argv: string[]) => runInProcess(argv, env);

  before(async () => {
    [controller, remote, guarded] = await Promise.all([
      startTestDaemon(),
      startTestDaemon({ flags: { role: 'compute' } }),
      startTestDaemon({ flags: { role: 'compute', authUser: 'admin' }, env: { EMUCTL_AUTH_PASSWORD: SECRET } }),
    ]);
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: controller.url });
  });
  after(async () => {
    await Promise.all([controller.stop(), remote.stop(), guarded.stop()]);
    for (const d of [controller, remote, guarded]) removeHome(d.home);
    removeTempHome(home);
  });

  it('compute list: the built-in local compute; --json the server array', async () => {
    const r = await run('compute', 'list');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^NAME +ID +URL +CONNECTED +CPU +MEMORY +LAST ERROR$/);
    assert.match(lines[1], new RegExp(`^\\S+ +local +${controller.url} +yes +\\d+\\.\\d% +\\d+\\.\\d% +-$`));
    const json = jsonOf(await run('compute', 'list', '--json'));
    const server = (await controller.api('GET', '/v2/computes')).body;
    const stable = (list: Array<Record<string, unknown>>) => list.map(({ cpu_usage_percent: _c, memory_usage_percent: _m, ...rest }) => rest);
    assert.deepEqual(stable(json), stable(server));
  });

  it('compute add: registers a compute-only daemon given by the global --url; it connects', async () => {
    const r = await run('compute', 'add', 'remote1', '--url', remote.url);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^✓ Added compute remote1 \\(\\S+\\) at ${remote.url}\\n$`));
    assert.equal(r.stderr, '');
    const listed = (await controller.api('GET', '/v2/computes')).body.find((c: { name: string }) => c.name === 'remote1');
    assert.deepEqual([listed.protocol, listed.host, listed.port, listed.connected], ['http', '127.0.0.1', remote.port, true]);
    assert.deepEqual(listed.capabilities.node_types.includes('ethernet_switch'), true);
  });

  it('compute add: --user and --password-stdin; the password is sent but never printed', async () => {
    const r = await runInProcess(['compute', 'add', 'guarded', '--url', guarded.url, '--user', 'admin', '--password-stdin', '--json'], env, { stdin: stdin(`${SECRET}\n`) });
    const json = jsonOf(r);
    assert.equal(json.connected, true, json.last_error);
    assert.equal(json.user, 'admin');
    assert.equal('password' in json, false);
    assert.doesNotMatch(r.stdout + r.stderr, new RegExp(SECRET));
    const show = await run('compute', 'show', 'guarded');
    assert.doesNotMatch(show.stdout, new RegExp(SECRET));
    assert.match(show.stdout, /^user: +admin$/m);
    // The wrong password: registered, but not connected, and the user is told why on stderr.
    const wrong = await runInProcess(['compute', 'add', 'guarded-bad', '--url', guarded.url, '--user', 'admin', '--password-stdin'], env, { stdin: stdin('nope') });
    assert.equal(wrong.code, 0, wrong.stderr);
    assert.match(wrong.stderr, /^warning: not connected yet: .*401/m);
  });

  it('compute add: an unreachable compute is registered with a warning naming the cause', async () => {
    const r = await run('compute', 'add', 'dead', '--url', 'http://127.0.0.1:9');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^✓ Added compute dead/);
    assert.match(r.stderr, /^warning: not connected yet: .*ECONNREFUSED\n$/);
  });

  it('compute add: usage errors (exit 2) before anything is sent', async () => {
    const before = (await controller.api('GET', '/v2/computes')).body.length;
    assertFails(await run('compute', 'add', 'x'), 2, /^emuctl: compute add needs --url URL/);
    assertFails(await run('compute', 'add', 'x', '--url', 'ftp://h:1'), 2, /only http and https/);
    assertFails(await run('compute', 'add', 'x', '--url', 'http://h:1/v2'), 2, /a compute URL is a server root/);
    assertFails(await run('compute', 'add', 'x', '--url', 'http://u:p@h:1'), 2, /credentials/);
    assertFails(await run('compute', 'add', 'x', '--url', 'http://h:1', '--password-stdin'), 2, /--password-stdin needs --user/);
    assertFails(await run('compute', 'add', 'x', '--url', 'http://h:1', '--password', 'p'), 2, /unknown option '--password'/);
    assert.equal((await controller.api('GET', '/v2/computes')).body.length, before);
  });

  it('compute list: every compute with its state and last error', async () => {
    const r = await run('compute', 'list');
    const row = (name: string) => r.stdout.split('\n').find((line) => line.startsWith(`${name} `))!.split(/ {2,}/);
    assert.equal(r.stdout.split('\n')[1].split(/ {2,}/)[1], 'local', 'local first');
    assert.deepEqual(row('remote1').slice(2, 4), [remote.url, 'yes']);
    assert.deepEqual(row('dead').slice(2, 7), ['http://127.0.0.1:9', 'no', '-', '-', "compute 'dead' (http://127.0.0.1:9) is unreachable: ECONNREFUSED"]);
  });

  it('compute show: by name or id; --json; no match is exit 1', async () => {
    const r = await run('compute', 'show', 'remote1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^name: +remote1\\nid: +\\S+\\nurl: +${remote.url}\\nuser: +-\\nconnected: +yes\\n`));
    assert.match(r.stdout, /^node types: +ethernet_switch, ethernet_hub/m);
    const json = jsonOf(await run('compute', 'show', 'local', '--json'));
    assert.deepEqual([json.compute_id, json.connected], ['local', true]);
    assertFails(await run('compute', 'show', 'nowhere'), 1, /^emuctl: no compute matches "nowhere"; known: /);
  });

  it('compute call: GET through the forward route, as a table; --json as the compute sent it', async () => {
    const r = await run('compute', 'call', 'local', 'network', 'interfaces');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ID +NAME +IP ADDRESS +NETMASK +MAC ADDRESS +TYPE +SPECIAL\n/);
    // The host's interfaces but the loopback, which a cloud may not use (host-interface-policy.ts).
    const rows = r.stdout.trimEnd().split('\n').slice(1).map((line) => line.split(/ +/)[0]);
    assert.ok(rows.length > 0 && !rows.includes('lo'), r.stdout);
    for (const name of rows) assert.ok(name in networkInterfaces() || existsSync(`/sys/class/net/${name}`), `${name} is a host interface`);
    const json = jsonOf(await run('compute', 'call', 'remote1', 'network', 'interfaces', '--json'));
    assert.deepEqual(json, (await remote.api('GET', '/v2/compute/network/interfaces')).body);
    const query = await run('compute', 'call', 'remote1', 'network', 'interfaces?verbose=1&x=a b', '--json', '--debug');
    assert.deepEqual(JSON.parse(query.stdout), json, 'stdout holds only the JSON');
    assert.match(query.stderr, /→ GET http:\/\/\S+\/v2\/computes\/\S+\/network\/interfaces\?verbose=1&x=a\+b\n/, 'the query string is sent');
    const ports = await run('compute', 'call', 'remote1', 'network', 'ports');
    assert.match(ports.stdout, /^\{\n {2}"console_port_range": \[/, 'nested answers as indented JSON');
  });

  it('compute call: --data JSON, @file and - (POST by default, PUT with --method); multi-segment actions', async () => {
    const pid = randomUUID();
    assert.equal((await remote.api('POST', '/v2/compute/projects', { project_id: pid, name: 'p' })).status, 201);
    const udp = jsonOf(await run('compute', 'call', 'remote1', 'projects', `${pid}/ports/udp`, '--data', '{}', '--json'));
    assert.equal(typeof udp.udp_port, 'number');
    const file = join(home, 'body.json');
    writeFileSync(file, '{"variables": [{"name": "a", "value": "1"}]}');
    const put = await run('compute', 'call', '--method', 'put', 'remote1', 'projects', pid, '--data', `@${file}`, '--json');
    assert.deepEqual(jsonOf(put).variables, [{ name: 'a', value: '1' }]);
    const fromStdin = await runInProcess(['compute', 'call', 'remote1', 'projects', `${pid}/ports/udp`, '--data', '-'], env, { stdin: stdin('{}') });
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.match(fromStdin.stdout, /^udp_port: +\d+\n$/, 'a flat object as fields');
    assert.equal((await run('compute', 'call', '--method', 'POST', 'guarded', 'projects', `${pid}/ports/udp`)).code, 1, 'no such project on that compute');
  });

  it('compute call: bad --data or method is a usage error (exit 2), nothing sent', async () => {
    assertFails(await run('compute', 'call', 'remote1', 'projects', 'x/ports/udp', '--data', '{x'), 2, /^emuctl: --data: the argument is not valid JSON/);
    assertFails(await run('compute', 'call', 'remote1', 'projects', 'x/ports/udp', '--data', `@${join(home, 'missing.json')}`), 2, /cannot read .*missing\.json: ENOENT/);
    const bad = await runInProcess(['compute', 'call', 'remote1', 'projects', 'x', '--data', '-'], env, { stdin: stdin('not json') });
    assertFails(bad, 2, /standard input is not valid JSON/);
    assertFails(await run('compute', 'call', '--method', 'GET', 'remote1', 'network', 'interfaces', '--data', '{}'), 2, /a GET sends no body/);
    assertFails(await run('compute', 'call', '--method', 'DELETE', 'remote1', 'network', 'interfaces'), 2, /GET, POST, PUT/);
  });

  it('compute call: the compute\'s errors pass through naming it, exit 1; an unknown compute is exit 1', async () => {
    assertFails(await run('compute', 'call', 'remote1', 'network', 'nothing'), 1, new RegExp(`^emuctl: compute 'remote1' \\(${remote.url}\\): `));
    // Known disconnected: the controller answers 503 at once, with why.
    assertFails(await run('compute', 'call', 'dead', 'network', 'interfaces'), 1, /^emuctl: compute dead \([0-9a-f-]+\) is not connected: compute 'dead' \(http:\/\/127\.0\.0\.1:9\) is unreachable/);
    assertFails(await run('compute', 'call', 'mars', 'network', 'interfaces'), 1, /^emuctl: no compute matches "mars"/);
  });

  it('compute remove: unregisters it; local cannot be removed (the server\'s 409, exit 1)', async () => {
    const r = await run('compute', 'remove', 'dead');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^✓ Removed compute dead \(\S+\)\n$/);
    assert.deepEqual(jsonOf(await run('compute', 'rm', 'guarded-bad', '--json')).removed, true);
    assertFails(await run('compute', 'remove', 'local'), 1, /^emuctl: .*local/);
    assertFails(await run('compute', 'remove', 'dead'), 1, /no compute matches "dead"/);
    const names = (await controller.api('GET', '/v2/computes')).body.map((c: { name: string }) => c.name);
    assert.deepEqual(names.includes('dead') || names.includes('guarded-bad'), false);
  });
});
