// A lab with a management network reached by automation (issue 29): 20 docker nodes of the ssh
// test image with `mgmt: {}`, an Ansible inventory that `ansible -m ping` uses with no other
// setup (20 of 20), an ssh config that `ssh -F` uses for each node, and `emuctl node ssh` with the
// remote command's exit status. Real docker, sshd, ssh and ansible; cleaned up by lab down.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, EMUCTL_BIN, removeTempHome, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';

const NODES = 20;
// This file's ports (25800-25999) and management range (198.19.64.0/18).
const DAEMON_ENV = { EMUCTL_CONSOLE_PORT_RANGE: '25800-25899', EMUCTL_UDP_PORT_RANGE: '25900-25999', EMUCTL_MGMT_RANGE: '198.19.64.0/18' };
const TIMEOUT = { timeout: 900_000 };

interface Run { code: number; stdout: string; stderr: string }

function run(command: string, argv: string[], env: NodeJS.ProcessEnv, timeout = 300_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, argv, { env, timeout, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr: stderr || (err && typeof err.code !== 'number' ? err.message : '') });
    });
  });
}

/** Polls `probe` until it is true or the deadline passes (a node's sshd starts with its container, a moment after `lab up` reports it started). */
async function until(what: string, probe: () => Promise<boolean>, ms = 180_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('lab with mgmt: ssh, node ssh and inventories reach every node', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const names = Array.from({ length: NODES }, (_, i) => `N${i + 1}`);
  const emuctl = (...argv: string[]) => run(process.execPath, [EMUCTL_BIN, '--url', d.url, ...argv], env);

  before(async () => {
    // The image script takes seconds: it runs while the daemon starts (awaited below, its failure too).
    const sshImage = testImage('ssh');
    sshImage.catch(() => undefined);
    d = await startTestDaemon({ env: DAEMON_ENV });
    const image = await sshImage;
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-mgmt-ssh-'));
    // ansible keeps its temporary files and ssh control sockets below HOME.
    // EMUCTL_TIMEOUT: the machine runs under a load of 20 and more.
    env = cliEnv(home, { EMUCTL_TIMEOUT: '120', ANSIBLE_HOME: join(home, '.ansible'), ANSIBLE_LOCAL_TEMP: join(home, '.ansible', 'tmp') });
    writeFileSync(join(dir, 'auto.yml'), `name: auto-ssh\nmgmt: {}\nnodes:\n${names.map((n) => `  ${n}: {type: docker, image: ${image}}`).join('\n')}\n`);
  });
  after(async () => {
    if (d) {
      await emuctl('lab', 'down', join(dir, 'auto.yml'));
      await d.stop();
      removeHome(d.home);
    }
    if (home) removeTempHome(home);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`lab up brings ${NODES} nodes up with management addresses and the lab's key, owner-only`, TIMEOUT, async () => {
    const started = Date.now();
    const up = await emuctl('lab', 'up', join(dir, 'auto.yml'));
    assert.equal(up.code, 0, up.stderr);
    const inspect = await emuctl('lab', 'inspect', 'auto-ssh', '--json');
    assert.equal(inspect.code, 0, inspect.stderr);
    const nodes = JSON.parse(inspect.stdout).nodes as { name: string; mgmt_ipv4: string | null }[];
    assert.equal(nodes.filter((n) => n.mgmt_ipv4).length, NODES, inspect.stdout);
    const ssh = join(home, 'labs');
    const [labDir] = (await run('ls', [ssh], env)).stdout.trim().split('\n');
    assert.equal(statSync(join(ssh, labDir)).mode & 0o777, 0o700);
    for (const file of ['id_ed25519', 'id_ed25519.pub', 'known_hosts']) assert.equal(statSync(join(ssh, labDir, file)).mode & 0o777, 0o600, file);
    assert.doesNotMatch(up.stdout + up.stderr, /PRIVATE KEY/);
    console.log(`# lab up of ${NODES} nodes with mgmt: ${Date.now() - started} ms`);
  });

  it(`ansible -i <generated inventory> all -m ping succeeds on ${NODES} of ${NODES}`, TIMEOUT, async () => {
    const inventory = join(dir, 'inventory.yml');
    const written = await emuctl('lab', 'inventory', join(dir, 'auto.yml'), '--format', 'ansible', '-o', inventory);
    assert.equal(written.code, 0, written.stderr);
    assert.equal(statSync(inventory).mode & 0o777, 0o600);
    let ping: Run = { code: 1, stdout: '', stderr: '' };
    const started = Date.now();
    // sshd starts with each container's command: until every node answers (the first ping of a node may come before it listens).
    await until('every node to answer ansible ping', async () => {
      ping = await run('ansible', ['-i', inventory, 'all', '-m', 'ping', '--forks', '20', '-o'], env);
      return ping.code === 0;
    });
    const ok = ping.stdout.split('\n').filter((l) => / \| SUCCESS => .*"ping": ?"pong"/.test(l)).map((l) => l.split(' ')[0]).sort();
    assert.deepEqual(ok, [...names].sort(), ping.stdout + ping.stderr);
    console.log(`# ansible ping ${ok.length}/${NODES} ok, ${Date.now() - started} ms after lab up`);
  });

  it('ssh -F <generated ssh-config> NODE hostname answers for each node, host keys recorded without a prompt', TIMEOUT, async () => {
    const config = join(dir, 'ssh.conf');
    assert.equal((await emuctl('lab', 'inventory', 'auto-ssh', '--format', 'ssh-config', '-o', config)).code, 0);
    const answers = await Promise.all(names.map((n) => run('ssh', ['-F', config, n, 'hostname'], env, 60_000)));
    answers.forEach((a, i) => {
      assert.equal(a.code, 0, `${names[i]}: ${a.stderr}`);
      assert.ok(a.stdout.trim().length > 0, names[i]);
    });
    const labDir = (await run('ls', [join(home, 'labs')], env)).stdout.trim();
    const known = readFileSync(join(home, 'labs', labDir, 'known_hosts'), 'utf8').trim().split('\n');
    assert.equal(known.length, NODES, 'one host key per node in the lab known_hosts');
    for (const fmt of ['hosts', 'json', 'nornir']) assert.equal((await emuctl('lab', 'inventory', 'auto-ssh', '--format', fmt)).code, 0, fmt);
  });

  it("emuctl node ssh runs a command with the lab's key and exits with its status", TIMEOUT, async () => {
    const hostname = await emuctl('node', 'ssh', 'N1', '-p', 'auto-ssh', '--', 'cat', '/root/.ssh/authorized_keys');
    assert.equal(hostname.code, 0, hostname.stderr);
    assert.match(hostname.stdout, /^ssh-ed25519 \S+ emuctl lab auto-ssh$/m);
    const status = await emuctl('node', 'ssh', 'N2', '-p', 'auto-ssh', '--', 'sh', '-c', "'exit 7'");
    assert.equal(status.code, 7, status.stderr);
    const missing = await emuctl('node', 'ssh', 'NOPE', '-p', 'auto-ssh', '--', 'true');
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
  });

  it('lab down forgets the lab host keys (new containers at the same addresses have new ones)', TIMEOUT, async () => {
    assert.equal((await emuctl('lab', 'down', join(dir, 'auto.yml'))).code, 0);
    const labDir = (await run('ls', [join(home, 'labs')], env)).stdout.trim();
    assert.equal(readFileSync(join(home, 'labs', labDir, 'known_hosts'), 'utf8'), '');
  });
});
