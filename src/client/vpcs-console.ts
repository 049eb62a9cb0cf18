import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { OperationError } from './errors.js';
import { connectConsoleSocket } from './console-socket.js';
import { AsyncLock } from '../util/async-lock.js';
import { TelnetFilter } from './telnet-filter.js';

/** A VPCS telnet console, one command at a time. */
export interface VpcsConsole {
  /** Runs one console command; resolves with its output (echo and prompt removed, `\n` line ends). */
  run(command: string, options?: { timeoutMs?: number }): Promise<string>;
  /** The VPC name the prompt shows (`PC1> ` → `PC1`); it follows `set pcname`. */
  readonly name: string;
  close(): void;
}

/** The prompt VPCS prints after each command: `\r` + name + `> `, last thing on the wire. */
const PROMPT = /\n\r+([^\r\n]{1,64})> $/;
/** Output must stay quiet this long after a prompt before the command counts as done. */
const SETTLE_MS = 30;
const DEFAULT_TIMEOUT_MS = 10_000;

interface Waiter {
  pattern: RegExp;
  resolve: (match: RegExpExecArray) => void;
  reject: (err: Error) => void;
  settle?: NodeJS.Timeout;
}

class VpcsConsoleConnection implements VpcsConsole {
  name = '';
  private buffer = '';
  private waiter?: Waiter;
  private readonly commands = new AsyncLock();
  private synced = false;
  private closed?: Error;
  private readonly telnet = new TelnetFilter();
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly socket: Socket, private readonly where: string) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer += this.decoder.write(this.telnet.filter(chunk));
      this.check();
    });
    socket.on('error', (err) => this.fail(new OperationError(`VPCS console ${where}: ${err.message}`)));
    socket.on('close', () => this.fail(new OperationError(`VPCS console ${where} closed the connection`)));
  }

  run(command: string, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}): Promise<string> {
    if (/[\r\n]/.test(command)) return Promise.reject(new OperationError('A VPCS command is one line'));
    const task = async () => {
      if (!this.synced) await this.sync(timeoutMs);
      return this.exchange(command, timeoutMs);
    };
    return this.commands.run(task);
  }

  close(): void {
    this.socket.destroy();
    this.fail(new OperationError(`VPCS console ${this.where} was closed`));
  }

  /**
   * Brings the console to a known prompt: earlier sessions' output is replayed on connect and a command
   * may still run, so echo a unique marker and wait for it; if that stalls, Ctrl-C and try once more.
   */
  async sync(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const interrupt of [false, true]) {
      if (interrupt) {
        this.socket.write('\x03');
        await new Promise((r) => setTimeout(r, 200)); // Ctrl-C flushes the pty input typed with it.
      }
      const marker = `emuctl-sync-${randomBytes(6).toString('hex')}`;
      this.socket.write(`echo ${marker}\n`);
      // A fresh VPCS may still run its startup script (`ip` alone takes ~3 s): do not interrupt it early.
      const budget = interrupt ? deadline - Date.now() : timeoutMs * 0.7;
      try {
        const match = await this.waitFor(new RegExp(`\\n${marker}\\r?\\n\\r*([^\\r\\n]{1,64})> $`), budget);
        this.name = match[1];
        this.buffer = '';
        this.synced = true;
        return;
      } catch (err) {
        if (this.closed || interrupt) throw err;
      }
    }
  }

  private async exchange(command: string, timeoutMs: number): Promise<string> {
    this.buffer = '';
    this.socket.write(`${command}\n`);
    let match: RegExpExecArray;
    try {
      match = await this.waitFor(PROMPT, timeoutMs);
    } catch (err) {
      if (!this.closed) {
        this.synced = false;
        this.socket.write('\x03'); // Interrupt it (a long ping) so the next command finds a prompt.
      }
      throw err instanceof OperationError && !this.closed
        ? new OperationError(`VPCS command "${command}" gave no prompt within ${timeoutMs} ms`)
        : err;
    }
    this.name = match[1];
    const text = this.buffer.slice(0, match.index + 1);
    this.buffer = '';
    const echoEnd = text.indexOf(command) >= 0 ? text.indexOf('\n', text.indexOf(command)) : -1;
    return cleanOutput(text.slice(echoEnd + 1));
  }

  private waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    if (this.closed) return Promise.reject(this.closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.clearWaiter();
        reject(new OperationError(`VPCS console ${this.where} gave no prompt within ${Math.round(timeoutMs)} ms`));
      }, Math.max(0, timeoutMs));
      this.waiter = {
        pattern,
        resolve: (m) => { clearTimeout(timer); resolve(m); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      };
      this.check();
    });
  }

  /** A prompt only counts once no more output follows it for SETTLE_MS. */
  private check(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    if (waiter.settle) clearTimeout(waiter.settle);
    waiter.settle = undefined;
    if (!waiter.pattern.test(this.buffer)) return;
    waiter.settle = setTimeout(() => {
      const match = waiter.pattern.exec(this.buffer);
      if (!match || this.waiter !== waiter) return;
      this.clearWaiter();
      waiter.resolve(match);
    }, SETTLE_MS);
  }

  private clearWaiter(): void {
    if (this.waiter?.settle) clearTimeout(this.waiter.settle);
    this.waiter = undefined;
  }

  private fail(err: Error): void {
    if (this.closed) return;
    this.closed = err;
    const waiter = this.waiter;
    this.clearWaiter();
    waiter?.reject(err);
  }
}

/** Output as plain text: no ANSI styling, `\n` line ends, no blank lines around it. */
function cleanOutput(text: string): string {
  return text
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .replace(/\r+\n/g, '\n')
    .replace(/\r/g, '')
    .replace(/^\n+|\n+$/g, '');
}

/** Connects to a VPCS console and waits for its prompt (UnreachableError when nothing listens). */
export async function connectVpcsConsole(
  host: string,
  port: number,
  { timeoutMs = DEFAULT_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<VpcsConsole> {
  const where = `${host}:${port}`;
  const socket = await connectConsoleSocket(host, port, timeoutMs, 'VPCS console');
  const session = new VpcsConsoleConnection(socket, where);
  try {
    await session.sync(timeoutMs);
  } catch (err) {
    session.close();
    throw err;
  }
  return session;
}

/** IPv4 settings VPCS reports after `ip`. */
export interface VpcsIpSettings {
  ip: string;
  mask: string;
  gateway?: string;
}

/** Sets the VPC's IPv4 address (`10.0.0.1/24`) and optional gateway; fails with VPCS's message if refused. */
export async function setIp(
  console: VpcsConsole,
  cidr: string,
  gateway?: string,
  { timeoutMs = 15_000 }: { timeoutMs?: number } = {},
): Promise<VpcsIpSettings> {
  const output = await console.run(`ip ${cidr}${gateway ? ` ${gateway}` : ''}`, { timeoutMs });
  // e.g. "Checking for duplicate address...\nPC1 : 10.0.0.1 255.255.255.0 gateway 10.0.0.254"
  const match = /^\S+ : (\d+\.\d+\.\d+\.\d+) (\d+\.\d+\.\d+\.\d+)(?: gateway (\d+\.\d+\.\d+\.\d+))?\s*$/m.exec(output);
  if (!match || match[1] !== cidr.split('/')[0]) {
    throw new OperationError(`VPCS refused "ip ${cidr}${gateway ? ` ${gateway}` : ''}": ${output.replace(/\n/g, ' ') || 'no answer'}`);
  }
  return { ip: match[1], mask: match[2], gateway: match[3] };
}

/** Result of a VPCS ping: one RTT per reply received. */
export interface PingResult {
  /** Echo requests reported (replies, ICMP errors and timeouts). */
  sent: number;
  received: number;
  rttsMs: number[];
  /** Why nothing was sent, e.g. `host (10.0.0.9) not reachable` (ARP failed) or `No gateway found`. */
  error?: string;
}

/** Parses the output of VPCS `ping` (0.5b2 lines, and later versions' `84 bytes from` prefix). */
export function parsePingOutput(output: string): PingResult {
  const result: PingResult = { sent: 0, received: 0, rttsMs: [] };
  for (const line of output.split('\n').map((l) => l.trim())) {
    const reply = /^(?:\d+ bytes from )?[\d.]+,? icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms$/.exec(line);
    if (reply) {
      result.sent++;
      result.received++;
      result.rttsMs.push(Number(reply[1]));
    } else if (/icmp_seq=\d+/.test(line)) {
      result.sent++; // "10.0.0.2 icmp_seq=1 timeout", or "*10.0.0.254 icmp_seq=1 ... (ICMP type:3, ...)".
    } else if (/not reachable|No gateway found|Cannot resolve|Invalid/i.test(line)) {
      result.error = line;
    }
  }
  return result;
}

/** Pings `ip` `count` times from the VPC (`-i` ms between probes, `-w` ms to wait for each reply). */
export async function ping(
  console: VpcsConsole,
  ip: string,
  count: number,
  { intervalMs, waitMs, timeoutMs }: { intervalMs?: number; waitMs?: number; timeoutMs?: number } = {},
): Promise<PingResult> {
  let command = `ping ${ip} -c ${count}`;
  if (intervalMs !== undefined) command += ` -i ${intervalMs}`;
  if (waitMs !== undefined) command += ` -w ${waitMs}`;
  const budget = timeoutMs ?? count * ((intervalMs ?? 1000) + (waitMs ?? 1000)) + 10_000;
  return parsePingOutput(await console.run(command, { timeoutMs: budget }));
}
