// The confinement shim's prompt echo (native/vpcs-confine.c, "prompt echo") with the real vpcs 0.5b2:
// VPCS's terminal hands it each key at once (VMIN=1, VTIME=0 instead of its own VMIN=3, VTIME=1, which
// held a lone key for a 100 ms timer), while keys typed one by one, an arrow key's escape sequence split
// across writes and the history it recalls still work. Speed itself is measured in bench/web only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, afterEach, describe, test } from 'node:test';
import { VPCS_CONFINE_SHIM_PATH } from '../../../src/daemon/kinds/vpcs/confinement.js';
import { VpcsProcess, type VpcsProcessOptions } from '../../../src/daemon/kinds/vpcs/vpcs-process.js';
import { PidJanitor, VpcsStarter, eventually, tempDir } from './vpcs-helpers.js';

/** A raw TCP client of a VPCS console that remembers everything it received. */
class RawConsole {
  private seen = '';
  private waiters: (() => void)[] = [];
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.seen += chunk.toString('latin1');
      for (const check of this.waiters.slice()) check();
    });
  }

  static async open(port: number): Promise<RawConsole> {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
    return new RawConsole(socket);
  }

  get received(): string {
    return this.seen;
  }

  /** Resolves once the text received after `from` matches `pattern`. */
  waitFor(pattern: RegExp, from = 0, timeoutMs = 10_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!pattern.test(this.seen.slice(from))) return;
        this.waiters = this.waiters.filter((w) => w !== check);
        clearTimeout(timer);
        resolve(this.seen.slice(from));
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`no ${pattern} from the console; after offset ${from} it sent ${JSON.stringify(this.seen.slice(from))}`));
      }, timeoutMs);
      this.waiters.push(check);
      check();
    });
  }

  /** Writes `bytes` and resolves once they left this process (so the next write is a segment of its own). */
  write(bytes: string): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(Buffer.from(bytes, 'latin1'), (err) => (err ? reject(err) : resolve())));
  }

  close(): void {
    this.socket.destroy();
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `stty -a` of the terminal a process reads as its stdin: { min, time } of its non-canonical reads. */
function stdinReadMode(pid: number): { min: number; time: number } {
  const tty = readlinkSync(`/proc/${pid}/fd/0`);
  assert.match(tty, /^\/dev\/pts\/\d+$/, `VPCS worker ${pid} reads ${tty}, not a pty`);
  const stty = spawnSync('stty', ['-F', tty, '-a'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(stty.status, 0, `stty -F ${tty} -a failed: ${stty.stderr || stty.error?.message}`);
  const min = /\bmin = (\d+);/.exec(stty.stdout);
  const time = /\btime = (\d+);/.exec(stty.stdout);
  assert.ok(min && time, `no min/time in stty output: ${stty.stdout}`);
  return { min: Number(min[1]), time: Number(time[1]) };
}

describe('VPCS prompt echo (confinement shim)', () => {
  const janitor = new PidJanitor();
  const dir = tempDir('emuctl-vpcs-echo-');
  const consoles: RawConsole[] = [];

  const starter = new VpcsStarter(dir.path, janitor);
  const startVpcs = (extra: Partial<VpcsProcessOptions> = {}): Promise<VpcsProcess> => starter.start(extra);

  async function openConsole(vpcs: VpcsProcess): Promise<RawConsole> {
    const console = await RawConsole.open(vpcs.options.consolePort);
    consoles.push(console);
    await console.waitFor(/VPCS> $/);
    return console;
  }

  /**
   * Types `text` one key at a time, each after the line so far ends the console's output. VPCS may redraw its
   * prompt line between keys, so the echo of a key is checked as the end of the line, not as the next byte.
   */
  async function typeKeyByKey(console: RawConsole, text: string): Promise<void> {
    const lineStart = console.received.length;
    for (let typed = 1; typed <= text.length; typed++) {
      await console.write(text[typed - 1]!);
      await console.waitFor(new RegExp(`${escapeRegExp(text.slice(0, typed))}$`), lineStart);
    }
  }

  afterEach(async () => {
    for (const c of consoles.splice(0)) c.close();
    await starter.stopAll();
    janitor.killAll();
  });
  after(() => dir.cleanup());

  test('the shim interposes the terminal calls VPCS makes (read, tcsetattr, tcgetattr)', () => {
    const nm = spawnSync('nm', ['-D', '--defined-only', VPCS_CONFINE_SHIM_PATH], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(nm.status, 0, `nm -D ${VPCS_CONFINE_SHIM_PATH} failed: ${nm.stderr || nm.error?.message}`);
    const exported = new Set(nm.stdout.split('\n').map((line) => line.trim().split(/\s+/)).filter((f) => f[1] === 'T').map((f) => f[2]));
    for (const name of ['read', 'tcsetattr', 'tcgetattr']) assert.ok(exported.has(name), `vpcs-confine.so does not export ${name}`);
  });

  test("VPCS's terminal hands it each key at once; unconfined it holds keys for VPCS's 100 ms timer", async () => {
    const confined = await startVpcs();
    // VPCS sets its prompt's terminal mode at start-up, before any client connects.
    await openConsole(confined);
    assert.deepEqual(stdinReadMode(confined.workerPid!), { min: 1, time: 0 });

    const unconfined = await startVpcs({ confinement: 'unconfined' });
    await openConsole(unconfined);
    assert.deepEqual(stdinReadMode(unconfined.workerPid!), { min: 3, time: 1 }, 'unconfined VPCS keeps its own mode (the check above can fail)');
  });

  test('keys typed one at a time echo in order and complete; an arrow key split across writes recalls history', async () => {
    const vpcs = await startVpcs();
    const console = await openConsole(vpcs);

    await typeKeyByKey(console, 'echo first-line');
    let from = console.received.length;
    await console.write('\r');
    await console.waitFor(/\r\nfirst-line\r\n[\s\S]*VPCS> $/, from);

    await typeKeyByKey(console, 'echo second-line');
    from = console.received.length;
    await console.write('\r');
    await console.waitFor(/\r\nsecond-line\r\n[\s\S]*VPCS> $/, from);

    // Up twice: ESC alone, then the rest of its sequence in another segment; then a whole one.
    from = console.received.length;
    await console.write('\x1b');
    await console.write('[A');
    await console.waitFor(/echo second-line$/, from);
    await console.write('\x1b[A');
    await console.waitFor(/echo first-line$/, from);
    from = console.received.length;
    await console.write('\r');
    const answer = await console.waitFor(/VPCS> $/, from);
    assert.match(answer, /\r\nfirst-line\r\n/);
    assert.ok(await eventually(() => vpcs.isRunning), 'VPCS still runs');
  });
});
