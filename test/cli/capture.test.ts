// capture verbs: argv → options with a spy run, then runs against real daemons (two switches
// for the plumbing, a VPCS lab for traffic), reading the results with tshark.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { runCli } from '../../src/cli/run.js';
import { PcapStreamParser } from '../../src/client/pcap-stream.js';
import { ping } from '../../src/client/vpcs-console.js';
import { captureListCommand } from '../../src/commands/capture/list.js';
import { capturePullCommand, runCapturePull } from '../../src/commands/capture/pull.js';
import { captureStartCommand } from '../../src/commands/capture/start.js';
import { captureStopCommand } from '../../src/commands/capture/stop.js';
import { captureWatchCommand } from '../../src/commands/capture/watch.js';
import { captureWiresharkCommand } from '../../src/commands/capture/wireshark.js';
import { decodeFrame } from '../../src/render/frame-decode.js';
import { BufferOutput } from '../../src/render/buffer-output.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { frameCount, icmpPackets } from '../helpers/tshark.js';
import { buildVpcsLab, directContext, waitFor, type VpcsLab } from './capture-helpers.js';
import { cliEnv, EMUCTL_BIN, parseWithSpy, removeTempHome, runInProcess, tempHome } from './helpers/cli.js';

/** This suite's port ranges (test/cli/demo.test.ts and test/e2e/cli-lab.test.ts have the rest of the capture ranges). */
const PORTS = { EMUCTL_UDP_PORT_RANGE: '32300-32399', EMUCTL_CONSOLE_PORT_RANGE: '26100-26129' };

const isUsage = (err: unknown) => err instanceof CommanderError && err.exitCode !== 0;

describe('capture verbs: argv → options', () => {
  it('capture start: link, --file, --dlt (any case, DLT_ optional), --duration, -p', async () => {
    const { opts } = await parseWithSpy('capture', captureStartCommand, ['capture', 'start', 'PC1:0-SW1:0', '-f', 'a.pcap', '--dlt', 'c_hdlc', '-d', '2.5', '-p', 'lab']);
    assert.deepEqual(opts, { link: 'PC1:0-SW1:0', file: 'a.pcap', dlt: 'DLT_C_HDLC', duration: 2.5, project: 'lab' });
    assert.deepEqual((await parseWithSpy('capture', captureStartCommand, ['capture', 'start', 'L', '--dlt', 'DLT_EN10MB'])).opts,
      { link: 'L', file: undefined, dlt: 'DLT_EN10MB', duration: undefined, project: undefined });
    await assert.rejects(parseWithSpy('capture', captureStartCommand, ['capture', 'start', 'L', '--dlt', 'DLT_WIFI']), isUsage);
    await assert.rejects(parseWithSpy('capture', captureStartCommand, ['capture', 'start', 'L', '--duration', '0']), isUsage);
    await assert.rejects(parseWithSpy('capture', captureStartCommand, ['capture', 'start']), isUsage);
  });

  it('capture stop and list', async () => {
    assert.deepEqual((await parseWithSpy('capture', captureStopCommand, ['capture', 'stop', 'abcd', '--project', 'p'])).opts, { link: 'abcd', project: 'p' });
    assert.deepEqual((await parseWithSpy('capture', captureListCommand, ['capture', 'list', '--json'])).opts, { project: undefined });
    assert.deepEqual((await parseWithSpy('capture', captureListCommand, ['capture', 'ls', '-p', 'p'])).opts, { project: 'p' });
  });

  it('capture pull: -o FILE, -o -, --follow', async () => {
    assert.deepEqual((await parseWithSpy('capture', capturePullCommand, ['capture', 'pull', 'L', '-o', '-'])).opts, { link: 'L', output: '-', follow: false, project: undefined });
    assert.deepEqual((await parseWithSpy('capture', capturePullCommand, ['capture', 'pull', 'L', '--output', 'x.pcap', '-F'])).opts, { link: 'L', output: 'x.pcap', follow: true, project: undefined });
    assert.deepEqual((await parseWithSpy('capture', capturePullCommand, ['capture', 'pull', 'L'])).opts, { link: 'L', output: undefined, follow: false, project: undefined });
  });

  it('capture watch: -c N, --since-now; wireshark: the link', async () => {
    assert.deepEqual((await parseWithSpy('capture', captureWatchCommand, ['capture', 'watch', 'L', '-c', '5', '--since-now', '--json'])).opts, { link: 'L', count: 5, sinceNow: true, project: undefined });
    assert.deepEqual((await parseWithSpy('capture', captureWatchCommand, ['capture', 'watch', 'L'])).opts, { link: 'L', count: undefined, sinceNow: false, project: undefined });
    await assert.rejects(parseWithSpy('capture', captureWatchCommand, ['capture', 'watch', 'L', '-c', '0']), isUsage);
    assert.deepEqual((await parseWithSpy('capture', captureWiresharkCommand, ['capture', 'wireshark', 'L', '-p', 'x'])).opts, { link: 'L', project: 'x' });
  });
});

describe('capture commands on a link between two switches', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let linkId: string;
  const run = (...argv: string[]) => runInProcess([...argv, '-p', 'cap'], env);
  const apiLink = async () => (await d.api('GET', `/v2/projects/${pid}/links/${linkId}`)).body;
  let pid: string;

  before(async () => {
    d = await startTestDaemon({ env: PORTS });
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-capture-'));
    env = cliEnv(home, { EMUCTL_URL: d.url });
    pid = await createProject(d, 'cap');
    const sw1 = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const sw2 = await createNode(d, pid, 'SW2', 'ethernet_switch');
    linkId = (await createLink(d, pid, [sw1.node_id, 0], [sw2.node_id, 0])).link_id;
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
    removeTempHome(home);
    rmSync(dir, { recursive: true, force: true });
  });

  it('capture list: none running yet', async () => {
    assert.deepEqual(await run('capture', 'list').then((r) => [r.code, r.stdout, r.stderr]), [0, 'no captures running in project cap\n', '']);
    assert.deepEqual(JSON.parse((await run('capture', 'list', '--json')).stdout), []);
  });

  it('capture start: confirms with the file path, the link is capturing, the file holds a pcap header', async () => {
    const r = await run('capture', 'start', 'SW1:0-SW2:0');
    assert.equal(r.code, 0, r.stderr);
    const link = await apiLink();
    assert.equal(link.capturing, true);
    assert.equal(r.stdout, `✓ Capturing on SW1:0/0-SW2:0/0 into ${link.capture_file_path}\n`);
    assert.match(r.stderr, /capture stop SW1:0\/0-SW2:0\/0/);
    assert.equal(link.capture_file_name, 'SW1_0-0_to_SW2_0-0.pcap');
    await waitFor('the pcap header', () => existsSync(link.capture_file_path) && statSync(link.capture_file_path).size >= 24);
    assert.equal(readFileSync(link.capture_file_path).readUInt32LE(0), 0xa1b2c3d4);
  });

  it('capture list: the capturing link with its file and size in bytes (the daemon is local); --json objects', async () => {
    const link = await apiLink();
    const r = await run('capture', 'list');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^LINK +FILE +SIZE +PATH$/);
    assert.equal(lines[1].split(/ +/).join(' '), `SW1:0/0-SW2:0/0 SW1_0-0_to_SW2_0-0.pcap 24 ${link.capture_file_path}`);
    const [row] = JSON.parse((await run('capture', 'list', '--json')).stdout);
    assert.deepEqual(row, { link_id: linkId, link: 'SW1:0/0-SW2:0/0', project_id: pid, capturing: true, capture_file_name: 'SW1_0-0_to_SW2_0-0.pcap',
      capture_file_path: link.capture_file_path, capture_compute_id: 'local', size: 24 });
  });

  it('capture start --file --dlt: restarts into the named file with that link type', async () => {
    const r = await run('capture', 'start', linkId.slice(0, 8), '--file', 'hdlc.pcap', '--dlt', 'DLT_C_HDLC', '--json');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual([out.capturing, out.capture_file_name, out.data_link_type], [true, 'hdlc.pcap', 'DLT_C_HDLC']);
    await waitFor('the pcap header', () => existsSync(out.capture_file_path) && statSync(out.capture_file_path).size >= 24);
    assert.equal(readFileSync(out.capture_file_path).readUInt32LE(20), 104, 'LINKTYPE_C_HDLC');
  });

  it('capture pull: a snapshot of a running capture, a whole pcap that tshark reads, no temporary file left', async () => {
    const file = join(dir, 'snap.pcap');
    const r = await run('capture', 'pull', 'SW1:0-SW2:0', '-o', file, '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { link_id: linkId, link: 'SW1:0/0-SW2:0/0', file, bytes: 24, frames: 0, capture_stopped: false });
    assert.equal(await frameCount(file), 0, 'tshark reads it');
    assert.deepEqual(readdirSync(dir), ['snap.pcap']);
  });

  it('capture pull and watch on a bad link name: exit 1 listing the links', async () => {
    const r = await run('capture', 'pull', 'SW1:5-SW2:5', '-o', join(dir, 'x.pcap'));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no link connects SW1:0\/5 and SW2:0\/5; links: SW1:0\/0-SW2:0\/0/);
    assert.equal((await run('capture', 'watch', 'nolink')).code, 1);
  });

  it('capture start --file with a path: a usage error before anything is sent (exit 2); the daemon refuses one too', async () => {
    const before = await apiLink();
    const r = await run('capture', 'start', 'SW1:0-SW2:0', '--file', '../escape.pcap');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: option '-f, --file <name>' argument '\.\.\/escape\.pcap' is invalid\. "\.\.\/escape\.pcap" is a path/);
    assert.deepEqual(await apiLink(), before);
    const direct = await d.api('POST', `/v2/projects/${pid}/links/${linkId}/start_capture`, { capture_file_name: '../escape.pcap' });
    assert.equal(direct.status, 400);
    assert.match(direct.body.message, /must be a plain file name/);
  });

  it('capture stop: says where the file is; stopping again is no error', async () => {
    const before = await apiLink();
    const r = await run('capture', 'stop', 'SW2:0-SW1:0');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `✓ Stopped the capture on SW1:0/0-SW2:0/0: ${before.capture_file_path}\n`);
    assert.equal((await apiLink()).capturing, false);
    const again = await run('capture', 'stop', 'SW1:0-SW2:0', '--json');
    assert.equal(again.code, 0);
    assert.equal(JSON.parse(again.stdout).capturing, false);
  });

  it('capture pull, watch and wireshark on a link that is not capturing: exit 1 saying how to start one', async () => {
    for (const verb of ['pull', 'watch']) {
      const r = await run('capture', verb, 'SW1:0-SW2:0');
      assert.equal(r.code, 1, verb);
      assert.match(r.stderr, /SW1:0\/0-SW2:0\/0 is not capturing: start a capture with 'emuctl capture start SW1:0\/0-SW2:0\/0'/);
    }
  });

  it('capture start --duration: captures that long, stops, prints the file', async () => {
    const began = Date.now();
    const r = await run('capture', 'start', 'SW1:0-SW2:0', '--duration', '0.4', '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - began >= 400);
    const out = JSON.parse(r.stdout);
    assert.equal(out.capturing, false);
    assert.ok(out.duration >= 0.4);
    assert.match(out.capture_file_path, /SW1_0-0_to_SW2_0-0\.pcap$/, 'the path is kept after the stop');
    assert.equal((await apiLink()).capturing, false);
    const human = await runInProcess(['capture', 'start', 'SW1:0-SW2:0', '-d', '0.1', '-p', 'cap'], { ...env, NO_COLOR: '1' }, { isTTY: true });
    assert.match(human.stdout, /^✓ Captured 0\.\d s on SW1:0\/0-SW2:0\/0: \/.*SW1_0-0_to_SW2_0-0\.pcap\n$/);
    assert.deepEqual(human.out.spinners, ['Capturing on SW1:0/0-SW2:0/0 for 0.1 s (Ctrl-C stops early)']);
    assert.match(human.stderr, /tshark -r \//);
  });

  it('capture wireshark without wireshark on PATH: exit 1 saying how to get it', async () => {
    const r = await runInProcess(['capture', 'wireshark', 'SW1:0-SW2:0', '-p', 'cap'], { ...env, PATH: dir });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "emuctl: wireshark is not installed (not on PATH): install it with 'sudo apt-get install wireshark', "
      + "or read the capture with tshark: emuctl capture pull SW1:0/0-SW2:0/0 -o - | tshark -r -\n");
  });

  it('capture wireshark: pipes the live stream into `wireshark -k -i -` until the capture stops', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'emuctl-fake-wireshark-'));
    try {
      const argsFile = join(bin, 'args');
      const streamFile = join(bin, 'stream.pcap');
      writeFileSync(join(bin, 'wireshark'), `#!/bin/sh\necho "$@" > ${argsFile}\ncat > ${streamFile}\n`);
      chmodSync(join(bin, 'wireshark'), 0o755);
      await run('capture', 'start', 'SW1:0-SW2:0');
      const watching = runInProcess(['capture', 'wireshark', 'SW1:0-SW2:0', '-p', 'cap'], { ...env, PATH: `${bin}:${process.env.PATH}` });
      await waitFor('wireshark to get the stream', () => existsSync(streamFile) && statSync(streamFile).size >= 24);
      await d.api('POST', `/v2/projects/${pid}/links/${linkId}/stop_capture`, {});
      const r = await watching;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(argsFile, 'utf8'), '-k -i -\n');
      assert.equal(readFileSync(streamFile).readUInt32LE(0), 0xa1b2c3d4);
      assert.match(r.stderr, /the capture on SW1:0\/0-SW2:0\/0 stopped/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
  it('Ctrl-C ends capture watch and capture pull --follow quietly (exit 0); pull keeps what arrived', async () => {
    assert.equal((await run('capture', 'start', 'SW1:0-SW2:0')).code, 0);
    const spawnCli = (...argv: string[]) => {
      const child = spawn(process.execPath, [EMUCTL_BIN, ...argv, '-p', 'cap'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
      return { child, stderr: () => stderr, exited };
    };
    const watch = spawnCli('capture', 'watch', 'SW1:0-SW2:0');
    await waitFor('watch to start', () => watch.stderr().includes('watching SW1:0/0-SW2:0/0 (Ethernet)'));
    watch.child.kill('SIGINT');
    assert.equal(await watch.exited, 0, watch.stderr());
    assert.match(watch.stderr(), /\n0 frames\n$/);

    const file = join(dir, 'follow.pcap');
    const pull = spawnCli('capture', 'pull', 'SW1:0-SW2:0', '--follow', '-o', file);
    const partial = () => readdirSync(dir).find((name) => name.startsWith('.follow.pcap.'));
    await waitFor('the pcap header in the download', () => { const p = partial(); return !!p && statSync(join(dir, p)).size >= 24; });
    pull.child.kill('SIGINT');
    assert.equal(await pull.exited, 0, pull.stderr());
    assert.equal(statSync(file).size, 24);
    assert.ok(!readdirSync(dir).some((name) => name.endsWith('.part')));
    await run('capture', 'stop', 'SW1:0-SW2:0');
  });
});

describe('capture pull when the server dies mid-download', () => {
  it('exit 1, and neither the file nor a temporary file is left', async () => {
    const d = await startTestDaemon({ env: PORTS });
    const home = tempHome();
    const dir = mkdtempSync(join(tmpdir(), 'emuctl-capture-'));
    try {
      const pid = await createProject(d, 'die');
      const a = await createNode(d, pid, 'A', 'ethernet_switch');
      const b = await createNode(d, pid, 'B', 'ethernet_switch');
      await createLink(d, pid, [a.node_id, 0], [b.node_id, 0]);
      const env = cliEnv(home, { EMUCTL_URL: d.url });
      assert.equal((await runInProcess(['capture', 'start', 'A:0-B:0', '-p', 'die'], env)).code, 0);
      const out = new BufferOutput({ env });
      const pulling = runCli(['capture', 'pull', 'A:0-B:0', '-p', 'die', '--follow', '-o', join(dir, 'x.pcap')], { out, env });
      await waitFor('the download to start', () => readdirSync(dir).length > 0);
      await d.stop('SIGKILL');
      assert.equal(await pulling, 1);
      assert.match(out.stderrText(), /the capture stream broke off: .*; nothing was saved/);
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      await d.stop();
      removeHome(d.home);
      removeTempHome(home);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('capture with traffic: a VPCS lab pinging across a switch', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let lab: VpcsLab;
  const L = 'PC1:0-SW1:0';
  const cli = (argv: string[], out = new BufferOutput({ env })) => runCli([...argv, '-p', 'traffic'], { out, env }).then((code) => ({ code, out }));
  const stopCapture = () => d.api('POST', `/v2/projects/${lab.projectId}/links/${lab.link1.link_id}/stop_capture`, {});

  before(async () => {
    d = await startTestDaemon({ env: PORTS });
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-capture-'));
    env = cliEnv(home, { EMUCTL_URL: d.url });
    lab = await buildVpcsLab(d, 'traffic');
  });
  after(async () => {
    lab?.close();
    await d.stop();
    removeHome(d.home);
    removeTempHome(home);
    rmSync(dir, { recursive: true, force: true });
  });

  it('capture watch prints the ARP and ICMP frames live, one line each, and exits when the capture stops', async () => {
    assert.equal((await cli(['capture', 'start', L])).code, 0);
    const out = new BufferOutput({ env });
    const watching = cli(['capture', 'watch', L], out);
    await waitFor('watch to start', () => out.stderrText().includes('watching'));
    const result = await ping(lab.pc1, '10.0.0.2', 3);
    assert.equal(result.received, 3, JSON.stringify(result));
    await waitFor('the third echo reply, while the capture still runs', () => (out.stdoutText().match(/echo reply/g) ?? []).length >= 3);
    await stopCapture();
    const { code } = await watching;
    assert.equal(code, 0, out.stderrText());
    const lines = out.stdoutText().trimEnd().split('\n');
    const time = '\\d\\d:\\d\\d:\\d\\d\\.\\d{6}';
    assert.ok(lines.some((l) => new RegExp(`^${time} 10\\.0\\.0\\.1 > 10\\.0\\.0\\.2 ICMP echo request, id \\d+, seq 1, length 64$`).test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => new RegExp(`^${time} 10\\.0\\.0\\.2 > 10\\.0\\.0\\.1 ICMP echo reply, id \\d+, seq 3, length 64$`).test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /ARP who-has 10\.0\.0\.2 tell 10\.0\.0\.1$/.test(l)) || lines.some((l) => / ARP /.test(l)), 'ARP crosses too');
    assert.match(out.stderrText(), new RegExp(`${lines.length} frames; the capture on PC1:0/0-SW1:0/0 stopped\\n$`));
  });

  it('capture watch --json: one JSON object per frame; -c stops after N frames', async () => {
    assert.equal((await cli(['capture', 'start', L])).code, 0);
    const out = new BufferOutput({ env });
    const watching = cli(['capture', 'watch', L, '--json', '-c', '2'], out);
    await ping(lab.pc1, '10.0.0.2', 2);
    assert.equal((await watching).code, 0, out.stderrText());
    const frames = out.stdoutText().trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.equal(frames.length, 2);
    assert.deepEqual(frames.map((f) => f.number), [1, 2]);
    const request = frames.find((f) => f.icmp_type === 8);
    assert.ok(request, JSON.stringify(frames));
    assert.deepEqual([request.protocol, request.src, request.dst, request.icmp_seq], ['ICMP', '10.0.0.1', '10.0.0.2', 1]);
    assert.match(request.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await stopCapture();
  });

  it('capture pull -o FILE while capturing: tshark shows the echo requests and replies with the right addresses', async () => {
    assert.equal((await cli(['capture', 'start', L, '--dlt', 'DLT_EN10MB'])).code, 0);
    assert.equal((await ping(lab.pc1, '10.0.0.2', 3)).received, 3);
    const file = join(dir, 'ping.pcap');
    const { code, out } = await cli(['capture', 'pull', L, '-o', file]);
    assert.equal(code, 0, out.stderrText());
    assert.match(out.stdoutText(), new RegExp(`^✓ Saved \\d+ frames \\(.*\\) from PC1:0/0-SW1:0/0 to ${file}\\n$`));
    const packets = await icmpPackets(file);
    assert.equal(packets.filter((p) => p.src === '10.0.0.1' && p.dst === '10.0.0.2' && p.type === 8).length, 3);
    assert.equal(packets.filter((p) => p.src === '10.0.0.2' && p.dst === '10.0.0.1' && p.type === 0).length, 3);
    await stopCapture();
  });

  it('capture pull on a terminal: a progress line of bytes and frames, cleared at the end', async () => {
    assert.equal((await cli(['capture', 'start', L])).code, 0);
    await ping(lab.pc1, '10.0.0.2', 1);
    const out = new BufferOutput({ isTTY: true, env: { ...env, NO_COLOR: '1' } });
    const { code } = await cli(['capture', 'pull', L, '-o', join(dir, 'tty.pcap')], out);
    assert.equal(code, 0, out.stderrText());
    assert.match(out.stderrText(), /^\r\x1b\[KPulling PC1:0\/0-SW1:0\/0: \d+(\.\d)? k?B, \d+ frames?/);
    assert.match(out.stderrText(), /\r\x1b\[Kthe capture is still running/);
    await stopCapture();
  });

  it('a restarted capture streams a fresh file: no frames from the previous run', async () => {
    assert.equal((await cli(['capture', 'start', L])).code, 0);
    await ping(lab.pc1, '10.0.0.2', 2);
    assert.equal((await cli(['capture', 'start', L])).code, 0, 'restart');
    const file = join(dir, 'fresh.pcap');
    assert.equal((await cli(['capture', 'pull', L, '-o', file])).code, 0);
    assert.equal((await icmpPackets(file)).length, 0, 'the old pings are not in the new capture');
    await stopCapture();
  });

  it('capture pull -o - streams the live capture until it stops', async () => {
    assert.equal((await cli(['capture', 'start', L])).code, 0);
    const { ctx, out } = await directContext(d.url, env);
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    const pulling = runCapturePull({ link: L, output: '-', follow: false, project: 'traffic' }, ctx, { stdout: sink });
    await ping(lab.pc1, '10.0.0.2', 2);
    const parser = new PcapStreamParser();
    const seen = () => parser.push(Buffer.concat(chunks.splice(0))).map((r) => decodeFrame(r.data));
    const frames: ReturnType<typeof decodeFrame>[] = [];
    await waitFor('the echo replies on the stream', () => {
      frames.push(...seen());
      return frames.filter((f) => f.info.startsWith('echo reply')).length >= 2;
    });
    await stopCapture();
    await pulling;
    assert.match(out.stderrText(), /the capture on PC1:0\/0-SW1:0\/0 stopped/);
    assert.equal(out.stdoutText(), '', 'the Output object wrote nothing on stdout');
    assert.ok(frames.some((f) => f.src === '10.0.0.1' && f.dst === '10.0.0.2' && f.info.startsWith('echo request')));
  });

  it('capture pull -o - with --json: usage error', async () => {
    const { code, out } = await cli(['capture', 'pull', L, '-o', '-', '--json']);
    assert.equal(code, 2);
    assert.match(out.stderrText(), /--json cannot be combined with -o -/);
  });
});
