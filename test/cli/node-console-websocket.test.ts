// `emuctl node console` through the server's console websocket, against a real daemon and a real VPCS:
// the daemon listens on ::1 only and asks for a password, so the console it reports ([::1]:port) is a
// port VPCS 0.5b2 does not listen on (it opens its console on IPv4 only) — the situation of a remote
// daemon behind one HTTP port. The CLI then reaches the console through the API, with the profile's credentials.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createContext } from '../../src/cli/context.js';
import { runNodeConsole } from '../../src/commands/node/console.js';
import { BufferOutput } from '../../src/render/buffer-output.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';
import { EMUCTL_BIN, assertFails, jsonOf, runBin, startCliDaemon, stopCliDaemon, type CliDaemon } from './helpers/cli.js';

const DAEMON_ENV = {
  EMUCTL_UDP_PORT_RANGE: '23300-23349', EMUCTL_CONSOLE_PORT_RANGE: '23430-23439',
  EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: 'c0nsole',
};

describe('node console through the console websocket', () => {
  let cli: CliDaemon;
  let env: NodeJS.ProcessEnv;
  let port: number;

  before(async () => {
    cli = await startCliDaemon({ flags: { host: '::1' }, env: DAEMON_ENV });
    // The profile carries the URL and the credentials; no EMUCTL_URL to override it.
    const { EMUCTL_URL: url, ...rest } = cli.env;
    env = rest;
    const added = await runBin(['--url', url!, 'profile', 'add', 'far', '--user', 'admin', '--password-stdin'], env, 'c0nsole\n');
    assert.equal(added.code, 0, added.stderr);
    assert.equal((await runBin(['profile', 'use', 'far'], env)).code, 0);
    assert.equal((await runBin(['project', 'create', 'lab', '--use'], env)).code, 0);
    const created = jsonOf(await runBin(['node', 'create', 'PC1', '--type', 'vpcs', '--json'], env));
    port = created.console;
    const started = await runBin(['node', 'start', 'PC1'], env);
    assert.equal(started.code, 0, started.stderr);
  });
  after(() => stopCliDaemon(cli));

  it('on a terminal: the console port refuses, so the session goes through the websocket; Ctrl-] quits, terminal restored', { timeout: 90_000 }, async () => {
    const printed = await runBin(['node', 'console', 'PC1', '--print'], env);
    assert.deepEqual([printed.code, printed.stdout], [0, `[::1]:${port}\n`], 'the console the daemon reports is on ::1');

    const input = Object.assign(new PassThrough(), { isTTY: true, rawModes: [] as boolean[], setRawMode(raw: boolean) { input.rawModes.push(raw); return input; } });
    const output = Object.assign(new PassThrough(), { isTTY: true });
    let screen = '';
    output.on('data', (chunk: Buffer) => (screen += chunk.toString('latin1')));
    const out = new BufferOutput({ env });
    const ctx = createContext(out, env, { json: false, color: false, quiet: false, debug: false });
    const session = runNodeConsole({ node: 'PC1', print: false, websocket: false }, ctx, { input, output });
    await typeUntil((text) => input.write(text), () => screen, 'show ip\n', /IP\/MASK +: 0\.0\.0\.0\/0[\s\S]*PC1> $/);
    input.write(Buffer.from([0x1d]));
    await session;
    assert.deepEqual(input.rawModes, [true, false]);
    assert.ok(!screen.includes('\xff'), 'no telnet negotiation on the screen');
    assert.match(out.stderrText(), new RegExp(`^Cannot connect to the console at \\[::1\\]:${port}: .*ECONNREFUSED.*; trying the console websocket of http://\\[::1\\]:\\d+\\n`));
    assert.match(out.stderrText(), /Connected to PC1 console at http:\/\/\[::1\]:\d+ \(websocket\)\. Press Ctrl-\] to quit\.\n\nDisconnected from PC1\.\n$/);
  });

  it('--websocket with scripted input (not a terminal): commands in, console output on stdout, Ctrl-] ends with exit 0', { timeout: 90_000 }, async () => {
    const { stdout, stderr } = await scriptedSession(env, 'ip 198.18.2.1/24\n', / : 198\.18\.2\.1 255\.255\.255\.0[\s\S]*PC1> $/);
    assert.match(stdout, /Checking for duplicate address/);
    assert.match(stderr, /^Connected to PC1 console at http:\/\/\[::1\]:\d+ \(websocket\)\. Press Ctrl-\] to quit\.\n\nDisconnected from PC1\.\n$/);
  });

  it('a wrong password: one line on stderr naming the credentials, exit 1; --websocket with --print is a usage error', async () => {
    const { EMUCTL_URL: _u, ...rest } = cli.env;
    const wrong = await runBin(['--url', cli.daemon.url, 'profile', 'add', 'wrong', '--user', 'admin', '--password-stdin'], rest, 'nope\n');
    assert.equal(wrong.code, 0, wrong.stderr);
    assertFails(await runBin(['--profile', 'wrong', 'node', 'console', 'PC1', '--websocket', '-p', 'lab'], env), 1, /^emuctl: .*check the profile's user and password/);
    assertFails(await runBin(['node', 'console', 'PC1', '--websocket', '--print'], env), 2, /^emuctl: --websocket connects to the console: it cannot be used with --print or --json\n$/);
  });
});

describe('node console --websocket to an https daemon', () => {
  let certs: TestCerts;
  let cli: CliDaemon;

  before(async () => {
    certs = makeTestCerts();
    cli = await startCliDaemon({ flags: { tlsCert: certs.leafCert, tlsKey: certs.leafKey }, env: { EMUCTL_UDP_PORT_RANGE: '23700-23749', EMUCTL_CONSOLE_PORT_RANGE: '23480-23489' } });
    const env = { ...cli.env, EMUCTL_CA_FILE: certs.caCert };
    assert.equal((await runBin(['project', 'create', 'lab', '--use'], env)).code, 0);
    assert.equal((await runBin(['node', 'create', 'PC1', '--type', 'vpcs'], env)).code, 0);
    const started = await runBin(['node', 'start', 'PC1'], env);
    assert.equal(started.code, 0, started.stderr);
  });
  after(async () => {
    await stopCliDaemon(cli);
    certs?.remove();
  });

  it('goes through wss with the profile\'s trust (the CA), and without it the server is not trusted (one line, non-zero exit)', { timeout: 90_000 }, async () => {
    const env = { ...cli.env, EMUCTL_CA_FILE: certs.caCert };
    const { stderr } = await scriptedSession(env, 'show ip\n', /IP\/MASK +: 0\.0\.0\.0\/0[\s\S]*PC1> $/);
    assert.match(stderr, /^Connected to PC1 console at https:\/\/127\.0\.0\.1:\d+ \(websocket\)/);
    const untrusted = await runBin(['node', 'console', 'PC1', '--websocket', '-p', 'lab'], cli.env);
    assert.notEqual(untrusted.code, 0);
    assert.match(untrusted.stderr, /^emuctl: cannot trust https:\/\/127\.0\.0\.1:\d+: its certificate is not signed by a trusted CA/);
  });
});

/** Runs `node console PC1 --websocket` with piped stdin: types `line` until stdout matches `answer`, then Ctrl-]; exit 0. */
async function scriptedSession(env: NodeJS.ProcessEnv, line: string, answer: RegExp): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [EMUCTL_BIN, 'node', 'console', 'PC1', '--websocket'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('latin1')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await typeUntil((text) => child.stdin.write(text), () => stdout, line, answer, () => stderr);
    child.stdin.write(Buffer.from([0x1d]));
    assert.equal(await exited, 0, stderr);
  } finally {
    child.kill();
  }
  return { stdout, stderr };
}

/**
 * Types `line` until the screen (after what was there) matches `answer`: VPCS drops what is typed while
 * it still prints its banner, so the first try may go unanswered.
 */
async function typeUntil(write: (text: string) => void, screen: () => string, line: string, answer: RegExp, log: () => string = () => ''): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const from = screen().length;
    write(line);
    const deadline = Date.now() + 4000;
    while (Date.now() < deadline) {
      if (answer.test(screen().slice(from))) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (attempt === 5) assert.fail(`no ${answer} after typing ${JSON.stringify(line)}: ${JSON.stringify(screen())} ${log()}`);
  }
}
