// End to end through the real binary: a lab of two VPCS on a switch built entirely with
// `emuctl` commands, pings across it, and the capture verbs read back with tshark; then
// `emuctl daemon start` and `emuctl demo` as a new user would run them.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectVpcsConsole, ping, setIp, type VpcsConsole } from '../../src/client/vpcs-console.js';
import { cliEnv, EMUCTL_BIN, removeTempHome, runBin, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { icmpPackets } from '../helpers/tshark.js';

/** This file's share of the capture port ranges (test/cli/capture.test.ts and demo.test.ts have the rest). */
const PORTS = { EMUCTL_UDP_PORT_RANGE: '32500-32599', EMUCTL_CONSOLE_PORT_RANGE: '26160-26199' };
const L = 'PC1:0-SW1:0';

/** A running `emuctl` child whose output is collected as it comes. */
interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

function spawnBin(argv: string[], env: NodeJS.ProcessEnv, cwd?: string): Running {
  const child = spawn(process.execPath, [EMUCTL_BIN, ...argv], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 20_000, refresh?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (await refresh?.(); !check(); await refresh?.()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Asserts tshark finds `count` echo requests 10.0.0.1 → 10.0.0.2 and as many replies back. */
async function assertPings(file: string, count: number): Promise<void> {
  const packets = await icmpPackets(file);
  assert.equal(packets.filter((p) => p.src === '10.0.0.1' && p.dst === '10.0.0.2' && p.type === 8).length, count, JSON.stringify(packets));
  assert.equal(packets.filter((p) => p.src === '10.0.0.2' && p.dst === '10.0.0.1' && p.type === 0).length, count, JSON.stringify(packets));
}

describe('end to end: a VPCS lab built with emuctl commands, captured with emuctl capture', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const consoles: VpcsConsole[] = [];
  const emuctl = async (...argv: string[]) => {
    const r = await runBin(['--url', d.url, ...argv], env);
    assert.equal(r.code, 0, `emuctl ${argv.join(' ')}: ${r.stderr}`);
    return r;
  };

  before(async () => {
    d = await startTestDaemon({ env: PORTS });
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-cli-lab-'));
    env = cliEnv(home);
  });
  after(async () => {
    for (const c of consoles) c.close();
    await d.stop();
    removeHome(d.home);
    removeTempHome(home);
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds the lab with project, node and link commands; the VPCS ping each other', async () => {
    await emuctl('project', 'create', 'clilab', '--use');
    await emuctl('node', 'create', 'SW1', '--type', 'ethernet_switch');
    await emuctl('node', 'create', 'PC1', '--type', 'vpcs');
    await emuctl('node', 'create', 'PC2', '--type', 'vpcs');
    await emuctl('link', 'create', 'PC1:0/0', 'SW1:0/0');
    await emuctl('link', 'create', 'PC2:0/0', 'SW1:0/1');
    await emuctl('node', 'start', 'PC1');
    await emuctl('node', 'start', 'PC2');
    for (const [name, ip] of [['PC1', '10.0.0.1/24'], ['PC2', '10.0.0.2/24']]) {
      const node = JSON.parse((await emuctl('node', 'show', name, '--json')).stdout);
      assert.equal(node.status, 'started');
      const console = await connectVpcsConsole('127.0.0.1', node.console);
      consoles.push(console);
      await setIp(console, ip);
    }
    const result = await ping(consoles[0], '10.0.0.2', 2);
    assert.equal(result.received, 2, JSON.stringify(result));
  });

  it('capture start, then capture pull -o FILE: tshark shows the echo requests and replies with the right addresses', async () => {
    const started = await emuctl('capture', 'start', L);
    assert.match(started.stdout, /^✓ Capturing on PC1:0\/0-SW1:0\/0 into \/.*PC1_0-0_to_SW1_0-0\.pcap\n$/);
    assert.equal((await ping(consoles[0], '10.0.0.2', 3)).received, 3);
    const file = join(dir, 'pulled.pcap');
    const pulled = await emuctl('capture', 'pull', L, '-o', file);
    assert.match(pulled.stdout, /^✓ Saved \d+ frames/);
    await assertPings(file, 3);
    const list = await emuctl('capture', 'list');
    assert.match(list.stdout, /^PC1:0\/0-SW1:0\/0 +PC1_0-0_to_SW1_0-0\.pcap +\d+ +\//m);
  });

  it('capture watch prints the pings live and exits when capture stop ends the capture', async () => {
    const watch = spawnBin(['--url', d.url, 'capture', 'watch', L, '--since-now'], env);
    await waitFor('watch to start', () => watch.stderr().includes('watching'));
    assert.equal((await ping(consoles[0], '10.0.0.2', 2)).received, 2);
    await waitFor('the echo replies on screen while the capture runs', () => (watch.stdout().match(/ICMP echo reply/g) ?? []).length >= 2);
    assert.match(watch.stdout(), /^\d\d:\d\d:\d\d\.\d{6} 10\.0\.0\.1 > 10\.0\.0\.2 ICMP echo request, id \d+, seq 1, length 64$/m);
    assert.match(watch.stdout(), /^\d\d:\d\d:\d\d\.\d{6} 10\.0\.0\.2 > 10\.0\.0\.1 ICMP echo reply, id \d+, seq 2, length 64$/m);
    assert.doesNotMatch(watch.stdout(), /seq 3,/, '--since-now skipped the earlier pings');
    const stopped = await emuctl('capture', 'stop', L);
    assert.match(stopped.stdout, /^✓ Stopped the capture on PC1:0\/0-SW1:0\/0: \//);
    assert.equal(await watch.exited, 0, watch.stderr());
    assert.match(watch.stderr(), /\d+ frames; the capture on PC1:0\/0-SW1:0\/0 stopped\n$/);
  });

  it('the same with --dlt DLT_EN10MB given explicitly: watch, and pull to the default file name in the current directory', async () => {
    await emuctl('capture', 'start', L, '--dlt', 'DLT_EN10MB', '--file', 'explicit.pcap');
    const watch = spawnBin(['--url', d.url, 'capture', 'watch', L, '--json'], env);
    // watch streams from the capture's first frame: it misses nothing whenever it connects.
    assert.equal((await ping(consoles[0], '10.0.0.2', 3)).received, 3);
    await waitFor('three echo replies as JSON', () => watch.stdout().split('\n').filter((l) => l.includes('"icmp_type":0')).length >= 3);
    const pulled = spawnBin(['--url', d.url, 'capture', 'pull', L], env, dir);
    assert.equal(await pulled.exited, 0, pulled.stderr());
    const file = join(dir, 'explicit.pcap');
    assert.equal(readFileSync(file).readUInt32LE(20), 1, 'LINKTYPE_ETHERNET');
    await assertPings(file, 3);
    await emuctl('capture', 'stop', L);
    assert.equal(await watch.exited, 0);
    const frames = watch.stdout().trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.ok(frames.some((f) => f.protocol === 'ICMP' && f.src === '10.0.0.1' && f.dst === '10.0.0.2' && f.icmp_type === 8));
    assert.ok(!readdirSync(dir).some((name) => name.endsWith('.part')), 'no temporary file left');
  });

  it('capture pull -o - | tshark -r - reads the live capture until it stops', async () => {
    await emuctl('capture', 'start', L);
    const shell = `"${process.execPath}" "${EMUCTL_BIN}" --url ${d.url} capture pull ${L} -o - | tshark -r - -Y icmp -T fields -e ip.src -e ip.dst -e icmp.type`;
    const piped = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('sh', ['-c', shell], { env, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }));
    });
    // The pull reads the capture file from its first byte, so pings sent before it connects are in it too;
    // stopping the capture flushes the file and ends the pull with the rest.
    assert.equal((await ping(consoles[0], '10.0.0.2', 2)).received, 2);
    await emuctl('capture', 'stop', L);
    const r = await piped;
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    assert.equal(rows.filter(([s, t, type]) => s === '10.0.0.1' && t === '10.0.0.2' && type === '8').length, 2, r.stdout);
    assert.equal(rows.filter(([s, t, type]) => s === '10.0.0.2' && t === '10.0.0.1' && type === '0').length, 2, r.stdout);
  });

  it('capture start --duration: captures while pinging, stops by itself, prints the file', async () => {
    // The link is polled over HTTP, not with a CLI process each time: on a loaded machine a CLI start can
    // take longer than a short capture lasts, and the window would be missed.
    const link = JSON.parse((await emuctl('link', 'show', L, '--json')).stdout) as { project_id: string; link_id: string };
    const capture = runBin(['--url', d.url, 'capture', 'start', L, '--duration', '8', '--json'], env);
    let capturing = false;
    await waitFor('the capture to start', () => capturing, 20_000, async () => {
      const res = await fetch(`${d.url}/v2/projects/${link.project_id}/links/${link.link_id}`);
      capturing = ((await res.json()) as { capturing?: boolean }).capturing === true;
    });
    assert.equal((await ping(consoles[0], '10.0.0.2', 2)).received, 2);
    const r = await capture;
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.capturing, false);
    await assertPings(out.capture_file_path, 2);
  });
});

describe('end to end: emuctl daemon start, then emuctl demo', () => {
  const home = tempHome();
  let port: number | undefined;
  let env: NodeJS.ProcessEnv;
  after(async () => {
    if (port) await runBin(['daemon', 'stop', '--port', String(port)], env);
    removeTempHome(home);
  });

  it('the demo builds the lab, pings, and points at a pcap in which tshark finds the pings', async () => {
    const started = await runBin(['daemon', 'start', '--port', '0', '--json'], cliEnv(home, PORTS));
    assert.equal(started.code, 0, started.stderr);
    port = JSON.parse(started.stdout).port as number;
    env = cliEnv(home, { ...PORTS, EMUCTL_URL: `http://127.0.0.1:${port}` });
    const r = await runBin(['demo'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^✓ Created project demo-\d{8}-\d{6} /);
    assert.match(r.stdout, /^✓ Pinged: 3\/3 replies/m);
    const path = /^pcap: (\/\S+)$/m.exec(r.stdout)?.[1];
    assert.ok(path, r.stdout);
    assert.match(r.stdout, new RegExp(`read it with: tshark -r ${path.replace(/[.]/g, '\\.')}`));
    await assertPings(path, 3);
  });
});
