import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TelnetFilter } from '../../src/client/telnet-filter.js';
import { listProcesses, readCmdline, isRunning } from '../../src/util/proc-info.js';

const run = promisify(execFile);
const BUILDER = fileURLToPath(new URL('../../../scripts/build-test-guest.mjs', import.meta.url));

/** The test guest's kernel and initramfs (built once from Debian packages, cached outside the repo). */
export interface TestGuest {
  kernel: string;
  initrd: string;
  version: string;
}

let building: Promise<TestGuest> | undefined;

/** Builds (or finds in the cache) the test guest. */
export function testGuest(): Promise<TestGuest> {
  building ??= run(process.execPath, [BUILDER], { timeout: 600_000, maxBuffer: 1024 * 1024 }).then(({ stdout }) => JSON.parse(stdout.trim().split('\n').pop()!) as TestGuest);
  return building;
}

/** The kernel command line of a guest with eth addresses (guest.ethN=ADDR/LEN) and optional forwarding. */
export function guestCmdline(addresses: string[], forward = false): string {
  return ['console=ttyS0', 'quiet', 'panic=-1', ...addresses.map((a, i) => `guest.eth${i}=${a}`), ...(forward ? ['guest.forward=1'] : [])].join(' ');
}

/** A busybox shell on a guest's serial console (telnet), one command at a time. */
export class GuestShell {
  private buffer = '';
  private seq = 0;
  private readonly telnet = new TelnetFilter();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => (this.buffer += this.telnet.filter(chunk).toString('latin1')));
    socket.on('error', () => undefined);
  }

  /** Connects and waits until the shell answers (the guest may still be booting). */
  static async connect(host: string, port: number, timeoutMs = 60_000): Promise<GuestShell> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(port, host);
      s.once('connect', () => resolve(s));
      s.once('error', reject);
    });
    const shell = new GuestShell(socket);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await shell.run('true', 1500);
        return shell;
      } catch (err) {
        if (Date.now() > deadline) {
          shell.close();
          throw err;
        }
      }
    }
  }

  /** Runs a command; resolves with its output and exit status. */
  async run(command: string, timeoutMs = 20_000): Promise<{ output: string; status: number }> {
    const marker = `__emuctl_${++this.seq}__`;
    const start = this.buffer.length;
    this.socket.write(`${command}; echo ${marker}$?\n`);
    const done = new RegExp(`${marker}(\\d+)`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.buffer.slice(start);
      const m = done.exec(text);
      if (m) {
        const body = text.slice(0, m.index);
        // The output starts after the line that echoes the command (it ends with the marker and `$?`).
        const echoed = body.indexOf(`${marker}$?`);
        const output = body.slice(body.indexOf('\n', Math.max(echoed, 0)) + 1).replace(/\r/g, '');
        return { output, status: Number(m[1]) };
      }
      if (Date.now() > deadline) throw new Error(`guest console: no answer to '${command}' within ${timeoutMs} ms; got: ${JSON.stringify(text.slice(-300))}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The running qemu-system processes whose command line names `uuid` (a node id). */
export function qemuProcessesOf(uuid: string): number[] {
  return listProcesses()
    .filter((p) => isRunning(p.pid))
    .filter((p) => {
      const argv = readCmdline(p.pid) ?? [];
      return /qemu-system-/.test(argv[0] ?? '') && argv.includes(uuid);
    })
    .map((p) => p.pid);
}
