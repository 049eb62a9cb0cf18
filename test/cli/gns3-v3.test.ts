import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pathsUnder } from '../../src/config/paths.js';
import { readProfilesData } from '../../src/client/profiles.js';
import { tokensFile } from '../../src/client/tokens.js';
import { ServerSession } from '../../src/client/session.js';
import { openLinkPcap } from '../../src/client/captures.js';
import { IDS, startContractServer, type ContractServer } from './helpers/gns3-v3-contract.js';
import { assertFails, cliEnv, jsonOf, removeTempHome, runBin, runInProcess, tempHome } from './helpers/cli.js';

// The CLI against a server that answers as GNS3 3.0.6 did (the recorded contract, see the helper):
// detection, login, the renamed routes, websockets with ?token=, and the token kept out of sight.
describe('the CLI against a GNS3 3.0.6 controller (recorded contract)', () => {
  let gns3: ContractServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const run = (...argv: string[]) => runInProcess(argv, env);
  const stdin = (text: string) => Readable.from([Buffer.from(text)]);
  const sentBy = async (argv: string[]) => {
    const from = gns3.requests.length;
    const r = await run(...argv);
    return { r, sent: gns3.requests.slice(from) };
  };

  before(async () => {
    gns3 = await startContractServer();
    home = tempHome();
    env = cliEnv(home, { EMUCTL_PROFILE: 'g3' });
  });
  after(async () => {
    await gns3.close();
    removeTempHome(home);
  });

  it('profile add detects v3, saves it in the profile (0600) and says so in profile list', async () => {
    const r = await runInProcess(['profile', 'add', 'g3', '--url', gns3.url, '--user', 'admin', '--password-stdin', '--default-project', 'contract-v3'], cliEnv(home), { stdin: stdin('admin\n') });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /Saved profile g3 \(http:\/\/127\.0\.0\.1:\d+, GNS3 API v3\)/);
    const paths = pathsUnder(home);
    assert.equal(readProfilesData(paths).profiles.g3.api, 'v3');
    assert.equal(statSync(join(home, 'profiles.json')).mode & 0o777, 0o600);
    const list = await run('profile', 'list');
    assert.match(list.stdout, /g3 +http:\/\/127\.0\.0\.1:\d+ +v3 +admin +contract-v3/);
  });

  it('project list: logs in once (JSON login), then sends the bearer token; the token file is 0600', async () => {
    const { r, sent } = await sentBy(['project', 'list']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /contract-v3 +opened +1a2b3c4d-0000-4000-8000-000000000001/);
    assert.deepEqual(sent.map((s) => `${s.method} ${s.route} ${s.status}`), ['POST /v3/access/users/authenticate 200', 'GET /v3/projects 200']);
    assert.equal(sent[1].authorization, `Bearer ${gns3.token}`);
    assert.equal(statSync(tokensFile(pathsUnder(home))).mode & 0o777, 0o600);
    // The next run reuses the kept token: no second login.
    const again = await sentBy(['project', 'list']);
    assert.deepEqual(again.sent.map((s) => s.route), ['/v3/projects']);
  });

  it('a token the server no longer takes: one new login, transparently, then the request again', async () => {
    gns3.revokeToken();
    const { r, sent } = await sentBy(['project', 'list', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sent.map((s) => `${s.method} ${s.route} ${s.status}`), ['GET /v3/projects 401', 'POST /v3/access/users/authenticate 200', 'GET /v3/projects 200']);
  });

  it('no user for a 3.x server: one line saying it needs a login, exit 1', async () => {
    const e = cliEnv(home, { EMUCTL_URL: gns3.url });
    const r = await runInProcess(['--api', 'v3', 'project', 'list'], { ...e, EMUCTL_PROFILE: 'local' });
    // The local profile has no user: the server asks for a login, and the message says how to give one.
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Not authenticated \(GNS3 3\.x needs a login/);
  });

  it('node list, start (204 on 3.x: the node is fetched), link list: the same output as against 2.2', async () => {
    const nodes = await run('node', 'list');
    assert.equal(nodes.code, 0, nodes.stderr);
    assert.match(nodes.stdout, /PC1 +vpcs +\S+ +local/);
    const { r, sent } = await sentBy(['node', 'start', 'PC1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sent.filter((s) => s.method === 'POST').map((s) => `${s.route} ${s.status}`), ['/v3/projects/{project_id}/nodes/{node_id}/start 204']);
    assert.equal((await run('link', 'list')).code, 0);
  });

  it('capture start/stop/pull use capture/start, capture/stop and capture/stream', async () => {
    const start = await sentBy(['capture', 'start', IDS.link1_id]);
    assert.equal(start.r.code, 0, start.r.stderr);
    assert.ok(start.sent.some((s) => s.route === '/v3/projects/{project_id}/links/{link_id}/capture/start' && s.status === 201));
    // The recorded link is not capturing (the server is stateless), so the stream is opened through the client itself.
    const session = new ServerSession({ url: gns3.url, user: 'admin', password: 'admin', timeoutMs: 5000 });
    const from = gns3.requests.length;
    const pcap = await openLinkPcap({ url: gns3.url, session }, IDS.project_id, IDS.link1_id);
    const bytes: Buffer[] = [];
    for await (const chunk of pcap.body) bytes.push(chunk as Buffer);
    assert.equal(Buffer.concat(bytes).readUInt32LE(0), 0xa1b2c3d4);
    const stream = gns3.requests.slice(from).find((s) => s.route.endsWith('/capture/stream'))!;
    assert.equal(stream.authorization, `Bearer ${gns3.token}`);
    assert.equal(stream.query.token, undefined, 'a plain HTTP stream sends the token in its header, not its URL');
    const stop = await sentBy(['capture', 'stop', IDS.link1_id]);
    assert.equal(stop.r.code, 0, stop.r.stderr);
    assert.ok(stop.sent.some((s) => s.route.endsWith('/capture/stop') && s.status === 204));
  });

  it('events: the project websocket with ?token=, and --debug never shows the token', async () => {
    const r = await run('events', '-c', '1', '--json', '--debug');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout.trim().split('\n')[0]).action, 'node.updated');
    const ws = gns3.requests.filter((s) => s.method === 'WEBSOCKET').at(-1)!;
    assert.equal(ws.path, `/v3/projects/${IDS.project_id}/notifications/ws`);
    assert.equal(ws.query.token, gns3.token);
    assert.match(r.stderr, /notifications\/ws\?token=<hidden>/);
    assert.ok(!r.stderr.includes(gns3.token) && !r.stdout.includes(gns3.token), 'the token is never printed');
  });

  it('export asks for zip; the switch NIO goes through the compute forward route; DELETE there is exit 2', async () => {
    const exp = await sentBy(['project', 'export', 'contract-v3', '-o', join(home, 'p.gns3project')]);
    assert.equal(exp.r.code, 0, exp.r.stderr);
    assert.equal(exp.sent.find((s) => s.route.endsWith('/export'))!.query.compression, 'zip');
    const nio = await sentBy(['switch', 'nio', 'add', 'SW1', '5', '--lport', '41008', '--rhost', '127.0.0.1', '--rport', '41901']);
    assert.equal(nio.r.code, 0, nio.r.stderr);
    assert.ok(nio.sent.some((s) => s.route === '/v3/computes/{compute_id}/{emulator}/{endpoint_path}' && s.path.endsWith('/ports/5/nio')));
    const remove = await run('switch', 'nio', 'remove', 'SW1', '5');
    assert.equal(remove.code, 2, remove.stderr);
    assert.match(remove.stderr, /GNS3 3\.x has no DELETE through its compute forward route/);
  });

  it('project lock/unlock and pools are verbs; against a v2 server they are one line, exit 2', async () => {
    const lock = await sentBy(['project', 'lock']);
    assert.equal(lock.r.code, 0, lock.r.stderr);
    assert.ok(lock.sent.some((s) => s.route === '/v3/projects/{project_id}/lock' && s.status === 204));
    assert.equal((await run('project', 'unlock')).code, 0);
    const pools = jsonOf(await run('pool', 'list', '--json'));
    assert.deepEqual(pools, []);
    const v2 = await run('--api', 'v2', 'pool', 'list');
    assert.equal(v2.code, 2);
    assert.match(v2.stderr, /resource pools are a GNS3 3\.x feature; .* speaks the GNS3 API v2/);
  });

  it('--api and EMUCTL_API take v2 or v3 only (exit 2)', async () => {
    assertFails(await run('--api', 'v4', 'project', 'list'), 2, /--api must be v2 or v3, not "v4"/);
    assertFails(await runInProcess(['project', 'list'], { ...env, EMUCTL_API: 'v9' }), 2, /EMUCTL_API must be v2 or v3, not "v9"/);
  });

  it('--api v2 against a 3.x server: one line saying the route is unknown there, not a bare 404', async () => {
    const r = await run('--api', 'v2', 'project', 'list');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /has no route GET \/v2\/projects: .*try --api v3/);
  });

  it('login and logout manage the kept token; the password never reaches the process list', async () => {
    const login = await runBin(['login', '--json'], env);
    assert.equal(login.code, 0, login.stderr);
    assert.ok(!login.stdout.includes(gns3.token));
    assert.match(JSON.parse(login.stdout).expires, /^\d{4}-\d\d-\d\dT/);
    assert.ok(readFileSync(tokensFile(pathsUnder(home)), 'utf8').includes(gns3.token));
    assert.equal((await runBin(['logout'], env)).code, 0);
    assert.ok(!readFileSync(tokensFile(pathsUnder(home)), 'utf8').includes(gns3.token));
  });

  it('every request was one GNS3 3.0.6 accepts', () => {
    assert.deepEqual(gns3.violations.filter((v) => !/^GET \/v2\/projects:/.test(v)), []);
  });
});
