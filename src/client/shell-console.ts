import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { OperationError, UnreachableError } from './errors.js';
import { AsyncLock } from '../util/async-lock.js';
import { TelnetFilter } from './telnet-filter.js';

/** A Unix shell on a telnet console (a QEMU guest's serial line), one command at a time. */
export interface ShellConsole {
  /** Runs one command line; resolves with what it printed and its exit status. */
  run(command: string, timeoutMs: number): Promise<{ output: string; status: number }>;
  close(): void;
}

const POLL_MS = 20;
/** How long one probe of a shell that may still be booting waits for its answer. */
const PROBE_MS = 1_500;

/**
 * Each command is sent as `COMMAND; echo MARKER=$?`: the shell prints the marker with the
 * command's status once the command is done. The terminal echoes the line with a literal `$?`,
 * so only the printed marker is followed by digits; the output is what comes between the end of
 * the echoed line and the printed marker.
 */
class ShellConnection implements ShellConsole {
  private buffer = '';
  private closed?: Error;
  private readonly lock = new AsyncLock();
  private readonly telnet = new TelnetFilter();

  constructor(private readonly socket: Socket, private readonly where: string) {
    socket.on('data', (chunk: Buffer) => (this.buffer += this.telnet.filter(chunk).toString('utf8')));
    socket.on('error', (err) => (this.closed ??= new OperationError(`console ${where}: ${err.message}`)));
    socket.on('close', () => (this.closed ??= new OperationError(`console ${where} closed the connection`)));
  }

  run(command: string, timeoutMs: number): Promise<{ output: string; status: number }> {
    if (/[\r\n]/.test(command)) return Promise.reject(new OperationError('A console command is one line'));
    return this.lock.run(() => this.exchange(command, timeoutMs));
  }

  private async exchange(command: string, timeoutMs: number): Promise<{ output: string; status: number }> {
    const marker = `__emuctl_${randomBytes(4).toString('hex')}_rc`;
    const start = this.buffer.length;
    this.socket.write(`${command}; echo ${marker}=$?\n`);
    const done = new RegExp(`${marker}=(\\d+)`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.buffer.slice(start);
      const m = done.exec(text);
      if (m) {
        const before = text.slice(0, m.index);
        const echoed = before.lastIndexOf(`${marker}=$?`);
        const body = echoed < 0 ? before : before.slice(before.indexOf('\n', echoed) + 1);
        return { output: cleanOutput(body), status: Number(m[1]) };
      }
      if (this.closed) throw this.closed;
      if (Date.now() > deadline) {
        this.socket.write('\x03'); // Interrupt it, so that the next command finds a prompt.
        throw new OperationError(`command "${command}" did not finish within ${Math.round(timeoutMs / 1000)} s on console ${this.where}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  close(): void {
    this.closed ??= new OperationError(`console ${this.where} was closed`);
    this.socket.destroy();
  }
}

/** Output as plain text: no ANSI styling, `\n` line ends, no blank lines around it. */
function cleanOutput(text: string): string {
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r+\n/g, '\n').replace(/\r/g, '').replace(/^\n+|\n+$/g, '');
}

/**
 * Connects to a shell console and waits until the shell answers (`true` comes back with its
 * status): a guest may still be booting. UnreachableError when nothing listens.
 */
export async function connectShellConsole(host: string, port: number, { timeoutMs = 60_000 }: { timeoutMs?: number } = {}): Promise<ShellConsole> {
  const where = `${host}:${port}`;
  const socket = connect({ host, port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new UnreachableError(`Cannot connect to console ${where}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => { clearTimeout(timer); resolve(); });
    socket.once('error', (err) => { clearTimeout(timer); reject(new UnreachableError(`Cannot connect to console ${where}: ${err.message}`)); });
  });
  const shell = new ShellConnection(socket, where);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await shell.run('true', Math.min(PROBE_MS, Math.max(1, deadline - Date.now())));
      return shell;
    } catch (err) {
      if (Date.now() >= deadline) {
        shell.close();
        throw new OperationError(`no shell answered on console ${where} within ${Math.round(timeoutMs / 1000)} s`);
      }
      if (err instanceof OperationError && /closed/.test(err.message)) {
        shell.close();
        throw err;
      }
    }
  }
}
