// Issue 33: FRR routers configure themselves under load. Many routers booted at once by `lab up`
// on this 2-core machine made watchfrr kill the job that loads frr.conf (`vtysh -b`) after its
// 20 s restart timeout, leaving routers running with no configuration. Here ROUTERS routers (80 with
// the old setup at load 100 left 77 of 80 unconfigured; fewer on a busier box) start at once with the FRR setup
// emuctl ships (the frr device's daemons file and start command, src/lab/generated/frr.ts), and every one must end
// up holding its frr.conf: `lab wait --configured` (hostname, interface addresses, router section,
// compared in each container) and `lab inspect` say so. Not timed: the waits are generous.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { FRR_START_COMMAND, FRR_START_FILE, FRR_VTYSH_CONF, frrDaemons } from '../../src/lab/generated/frr.js';
import { cliEnv, jsonOf, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';

const run = promisify(execFile);
const ROUTERS = 40;
// Two console ports per docker node; no links, so few UDP ports.
const ENV = { EMUCTL_CONSOLE_PORT_RANGE: '26600-26799', EMUCTL_UDP_PORT_RANGE: '26800-26899' };
const LAB = `frr-load-${process.pid}`;
/** The frr device's start command: emuctl-start.sh starts the daemons, loads frr.conf, then starts watchfrr. */
const CMD = FRR_START_COMMAND;

function frrConf(i: number): string {
  return [
    'frr defaults traditional', `hostname R${i}`, 'service integrated-vtysh-config', '!',
    'interface lo', ` ip address 198.18.1.${i}/32`, ' ip ospf area 0', '!',
    'interface eth0', ` ip address 198.19.${i}.1/30`, ' ip ospf area 0', ' ip ospf network point-to-point', '!',
    'router ospf', ` ospf router-id 198.18.1.${i}`, ' passive-interface lo', '!',
  ].join('\n') + '\n';
}

/** The lab file (and its startup files) in `dir`: ROUTERS routers with the frr device's daemons (OSPF) and vtysh.conf. */
function writeLab(dir: string, image: string): string {
  writeFileSync(join(dir, 'daemons'), frrDaemons(['ospfd']));
  writeFileSync(join(dir, 'vtysh.conf'), FRR_VTYSH_CONF);
  writeFileSync(join(dir, 'emuctl-start.sh'), Object.values(FRR_START_FILE)[0]!);
  const lines = [`name: ${LAB}`, 'nodes:'];
  for (let i = 1; i <= ROUTERS; i++) {
    mkdirSync(join(dir, `r${i}`));
    writeFileSync(join(dir, `r${i}`, 'frr.conf'), frrConf(i));
    lines.push(`  R${i}:`, '    type: docker', `    image: ${image}`, '    adapters: 1', `    cmd: ${CMD}`, '    files:',
      `      /etc/frr/frr.conf: r${i}/frr.conf`, '      /etc/frr/daemons: daemons', '      /etc/frr/vtysh.conf: vtysh.conf',
      '      /etc/frr/emuctl-start.sh: emuctl-start.sh');
  }
  const file = join(dir, `${LAB}.yml`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

describe(`FRR under load: ${ROUTERS} routers started at once all hold their configuration`, () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let file: string;
  let env: NodeJS.ProcessEnv;
  let projectId: string | undefined;
  const cli = (...argv: string[]) => runInProcess(argv, env);
  const containers = async () => projectId ? (await run('docker', ['ps', '-aq', '--filter', `label=emuctl.project=${projectId}`])).stdout.split('\n').filter(Boolean) : [];

  before(async () => {
    // The image script takes seconds: it runs while the daemon starts (awaited below, its failure too).
    const frrImage = testImage('frr');
    frrImage.catch(() => undefined);
    d = await startTestDaemon({ env: ENV });
    const image = await frrImage;
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-frr-load-'));
    file = writeLab(dir, image);
    env = cliEnv(home, { EMUCTL_URL: d.url });
  });
  after(async () => {
    if (d) {
      await cli('lab', 'down', LAB).catch(() => undefined);
      await d.stop();
      removeHome(d.home);
    }
    for (const id of await containers().catch(() => [])) await run('docker', ['rm', '-f', '-v', id]).catch(() => undefined);
    if (home) removeTempHome(home);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lab up starts them all, lab wait --configured finds every router holding its frr.conf, lab inspect agrees', async () => {
    const up = await cli('lab', 'up', file);
    assert.equal(up.code, 0, up.stderr);
    projectId = jsonOf(await cli('project', 'show', LAB, '--json')).project_id;
    assert.equal((await containers()).length, ROUTERS);

    const wait = await cli('lab', 'wait', file, '--configured', '--timeout', '900');
    assert.equal(wait.code, 0, `${wait.stderr}${wait.stdout}`);
    assert.match(wait.stdout, new RegExp(`${ROUTERS} routers hold their frr.conf`));

    const inspection = jsonOf(await cli('lab', 'inspect', LAB, '--json'));
    const notConfigured = inspection.nodes.filter((n: any) => !n.config?.ok).map((n: any) => `${n.name} ${JSON.stringify(n.config)}`);
    assert.deepEqual(notConfigured, []);
    assert.equal(inspection.nodes.length, ROUTERS);
  });

  it('a router whose running configuration lost an address is reported by lab wait and lab inspect', async () => {
    const exec = await cli('node', 'exec', 'R7', '-p', LAB, '--', 'vtysh', '-c', 'configure terminal', '-c', 'interface eth0', '-c', 'no ip address 198.19.7.1/30');
    assert.equal(exec.code, 0, exec.stderr);
    const wait = await cli('lab', 'wait', file, '--configured', '--timeout', '3');
    assert.equal(wait.code, 1);
    // On a loaded machine other routers may also miss the 3 s (their exec has no answer yet): R7 is named with what it lacks.
    assert.match(wait.stderr, new RegExp(`^emuctl: \\d+ of ${ROUTERS} routers not configured within 3 s: (.*; )?R7: lacks interface eth0: ip address 198\\.19\\.7\\.1/30(;|\\n)`));
    const inspection = jsonOf(await cli('lab', 'inspect', LAB, 'R7', '--json'));
    assert.deepEqual(inspection.nodes.map((n: any) => [n.name, n.config]), [['R7', { ok: false, missing: ['interface eth0: ip address 198.19.7.1/30'] }]]);
  });

  it('lab down removes every container on the first try', async () => {
    const down = await cli('lab', 'down', LAB);
    assert.equal(down.code, 0, down.stderr);
    assert.deepEqual(await containers(), []);
  });
});
