// A web page on another loopback origin posts shell commands to every TCP console of a started lab
// (fetch no-cors POST, what issue 26 found typing into a docker node's shell): a docker node's console
// and aux, a QEMU guest's serial console and a VPCS console. The daemon's console guard drops each
// connection before a byte of it reaches the node: the marker each body would create is absent, while
// the same command typed by a telnet client on the same console afterwards creates its own marker.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Docker from 'dockerode';
import { connectVpcsConsole } from '../../src/client/vpcs-console.js';
import { launchBrowser, servePage, type PageServer, type TestBrowser } from '../helpers/browser.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { createNode, createProject } from '../helpers/lab.js';
import { GuestShell, guestCmdline, testGuest } from '../helpers/qemu-guest.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '24810-24859', EMUCTL_CONSOLE_PORT_RANGE: '24860-24869', EMUCTL_QEMU_ACCEL: 'tcg' };
const docker = new Docker({ socketPath: '/var/run/docker.sock' });

/** Polls `check` until it holds or `ms` pass (the machine may be loaded). */
async function until(check: () => Promise<boolean> | boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The attack: one no-cors POST per console port, each body a command that would leave a marker. */
function attackPage(targets: { port: number; body: string }[]): string {
  return `<!doctype html><html><body><script>
window.results = [];
(async () => {
  for (const t of ${JSON.stringify(targets)}) {
    try {
      const res = await fetch('http://127.0.0.1:' + t.port, { method: 'POST', mode: 'no-cors', body: t.body });
      window.results.push(t.port + ' ' + res.type);
    } catch (e) {
      window.results.push(t.port + ' error: ' + e.message);
    }
  }
  window.done = true;
})();
</script></body></html>`;
}

/** A telnet-like client: sends Enter first (as a user does), then `lines`, and closes once `done` shows in the output. */
async function typeLines(port: number, lines: string[], done: RegExp): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let seen = '';
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.on('data', (chunk: Buffer) => (seen += chunk.toString('latin1')));
    socket.write('\r\n');
    for (const line of lines) socket.write(`${line}\r\n`);
    await until(() => done.test(seen) || socket.destroyed, `${done} on console ${port}`);
    assert.match(seen, done, `console ${port} answered: ${seen}`);
    return seen;
  } finally {
    socket.destroy();
  }
}

describe('consoles against a cross-site page in Chromium', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-console-xproto-'));
  let d: TestDaemon;
  let browser: TestBrowser | undefined;
  let page: PageServer | undefined;
  let pid: string;
  let dockerNode: any;
  let qemuNode: any;
  let vpcsNode: any;
  let containerId = '';
  let dockerAux = 0;

  before(async () => {
    const [guest, image] = await Promise.all([testGuest(), testImage('host')]);
    const images = join(tmp, 'home', 'images', 'QEMU');
    mkdirSync(images, { recursive: true });
    copyFileSync(guest.kernel, join(images, 'vmlinuz'));
    copyFileSync(guest.initrd, join(images, 'initrd.img'));
    d = await startTestDaemon({ home: join(tmp, 'home'), env: ENV });
    pid = await createProject(d, 'console-cross-protocol');
    dockerNode = await createNode(d, pid, 'D1', 'docker', { compute_id: 'local', properties: { image, start_command: 'sh', adapters: 1 } });
    qemuNode = await createNode(d, pid, 'R1', 'qemu', { properties: { kernel_image: 'vmlinuz', initrd: 'initrd.img', ram: 128, kernel_command_line: guestCmdline(['198.18.6.1/24']) } });
    vpcsNode = await createNode(d, pid, 'PC1', 'vpcs');
    const computeSide = (await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${dockerNode.node_id}`)).body;
    containerId = computeSide.container_id;
    dockerAux = computeSide.aux;
    assert.ok(Number.isInteger(dockerAux), `the docker node has an aux console: ${JSON.stringify(computeSide)}`);
    for (const n of [dockerNode, qemuNode, vpcsNode]) {
      const r = await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/start`, {});
      assert.equal(r.status, 200, r.text);
    }
    // The guest boots under TCG: wait for its shell before the attack, so a body that got through would run.
    const shell = await GuestShell.connect('127.0.0.1', qemuNode.console, 240_000);
    shell.close();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await page?.close();
    if (d) {
      await d.api('DELETE', `/v2/projects/${pid}`).catch(() => undefined);
      await d.stop();
    }
    if (containerId) await docker.getContainer(containerId).remove({ force: true }).catch(() => undefined);
    removeHome(tmp);
  });

  it('no byte of a no-cors POST reaches a docker, QEMU or VPCS console; each drop is one warning naming the page\'s connection; telnet still works', { timeout: 600_000 }, async () => {
    const vpcsDir = (await d.api('GET', `/v2/compute/projects/${pid}/vpcs/nodes/${vpcsNode.node_id}`)).body.node_directory as string;
    // Run without the guard, the docker and QEMU bodies leave their markers: the browser closes at once on a
    // console's telnet greeting, so QEMU's serial gets a long body that is still being read. VPCS drops what
    // it has after a bad line (the request line), so its body leaves a marker only now and then; the
    // warning each port logs is what shows every connection was dropped.
    const targets = [
      { port: dockerNode.console, body: '\n\ntouch /tmp/pwned-console\n' },
      { port: dockerAux, body: '\n\ntouch /tmp/pwned-aux\n' },
      { port: qemuNode.console, body: '\n\ntouch /pwned-qemu\n'.repeat(2000) },
      { port: vpcsNode.console, body: `${'\n'.repeat(40)}save pwned-vpcs\n`.repeat(1000) },
    ];
    page = await servePage('127.0.0.2', () => attackPage(targets));
    const tab = await browser!.newPage();
    await tab.goto(`${page.origin}/`);
    await tab.waitForFunction(() => (window as any).done === true, undefined, { timeout: 120_000 });
    const results = (await tab.evaluate(() => (window as any).results)) as string[];
    assert.equal(results.length, targets.length, results.join('\n'));

    // One warning per console, naming the page's connection (the browser may retry a dropped request: at least one each).
    for (const t of targets) {
      await until(() => new RegExp(`\\(port ${t.port}\\): dropped a connection from 127\\.0\\.0\\.1:\\d+ whose first bytes are an HTTP request`).test(d.log()), `the warning for port ${t.port}`);
    }

    // The same consoles, typed at by a client: each creates its own marker, so the checks below can fail.
    const exec = async (command: string[]) => (await d.api('POST', `/v2/projects/${pid}/nodes/${dockerNode.node_id}/exec`, { command, timeout: 60 })).body as { output: string; exit_code: number };
    await typeLines(dockerNode.console, ['touch /tmp/typed-console; echo typed-$((6*7))'], /typed-42/);
    await typeLines(dockerAux, ['touch /tmp/typed-aux; echo typed-$((6*7))'], /typed-42/);
    const listing = await exec(['ls', '/tmp']);
    assert.match(listing.output, /typed-console/);
    assert.match(listing.output, /typed-aux/);
    assert.doesNotMatch(listing.output, /pwned/, 'a POST body ran in the container');

    const shell = await GuestShell.connect('127.0.0.1', qemuNode.console, 120_000);
    try {
      assert.equal((await shell.run('touch /typed-qemu')).status, 0);
      const guestRoot = (await shell.run('ls /')).output;
      assert.match(guestRoot, /typed-qemu/);
      assert.doesNotMatch(guestRoot, /pwned-qemu/, 'a POST body ran in the guest');
    } finally {
      shell.close();
    }

    const vpcs = await connectVpcsConsole('127.0.0.1', vpcsNode.console);
    try {
      await vpcs.run('save typed-vpcs');
    } finally {
      vpcs.close();
    }
    assert.ok(existsSync(join(vpcsDir, 'typed-vpcs.vpc')), 'save through a telnet client writes its file');
    assert.equal(existsSync(join(vpcsDir, 'pwned-vpcs.vpc')), false, 'a POST body reached VPCS');
  });
});
