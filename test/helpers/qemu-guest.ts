import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connectShellConsole, type ShellConsole } from '../../src/client/shell-console.js';
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

/**
 * A busybox shell on a guest's serial console, one command at a time: the CLI's own shell console
 * (src/client/shell-console.ts), with the tests' default timeout.
 */
export class GuestShell {
  private constructor(private readonly shell: ShellConsole) {}

  /** Connects and waits until the shell answers (the guest may still be booting). */
  static async connect(host: string, port: number, timeoutMs = 60_000): Promise<GuestShell> {
    return new GuestShell(await connectShellConsole(host, port, { timeoutMs }));
  }

  /** Runs a command; resolves with its output and exit status. */
  run(command: string, timeoutMs = 20_000): Promise<{ output: string; status: number }> {
    return this.shell.run(command, timeoutMs);
  }

  close(): void {
    this.shell.close();
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
