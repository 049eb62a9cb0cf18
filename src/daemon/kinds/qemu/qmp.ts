import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../../errors.js';
import { connectUnix } from '../../compute/unix-socket.js';

/** How long one QMP command may take before the call fails. */
const COMMAND_TIMEOUT_MS = 10_000;

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export interface QmpClient {
  /** An asynchronous QMP event (SHUTDOWN, STOP, RESUME, …). */
  on(event: 'event', listener: (name: string, data: unknown) => void): this;
  /** The connection closed (QEMU ended). */
  on(event: 'close', listener: () => void): this;
}

/**
 * A client of QEMU's QMP monitor on a unix socket: one JSON object per line; the server greets,
 * `qmp_capabilities` leaves negotiation mode, then each command gets one answer carrying its `id`.
 */
export class QmpClient extends EventEmitter {
  private buffer = '';
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private greeted?: () => void;
  closed = false;

  private constructor(private readonly socket: Socket) {
    super();
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => this.onClose());
  }

  /** Connects to `path`, retrying while QEMU has not created it yet, and negotiates capabilities. */
  static async connect(path: string, timeoutMs: number, stillAlive: () => boolean = () => true): Promise<QmpClient> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const socket = await connectUnix(path);
        const client = new QmpClient(socket);
        await client.handshake(Math.max(1000, deadline - Date.now()));
        return client;
      } catch (err) {
        if (!stillAlive()) throw new ConflictError('QEMU ended before its QMP monitor answered');
        if (Date.now() >= deadline) throw new ConflictError(`QEMU's QMP monitor at ${path} did not answer within ${timeoutMs} ms: ${(err as Error).message}`);
        await sleep(50);
      }
    }
  }

  /** Runs one QMP command; resolves with its `return` value, rejects with its `error.desc`. */
  execute<T = unknown>(command: string, args?: Record<string, unknown>): Promise<T> {
    if (this.closed) return Promise.reject(new ConflictError(`QMP ${command}: the monitor is closed (QEMU not running)`));
    const id = String(this.nextId++);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ConflictError(`QMP ${command} got no answer within ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.socket.write(JSON.stringify({ execute: command, ...(args ? { arguments: args } : {}), id }) + '\n');
    });
  }

  /** Closes the connection (QEMU keeps running). */
  close(): void {
    this.socket.destroy();
  }

  private async handshake(timeoutMs: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no QMP greeting')), timeoutMs);
      this.greeted = () => {
        clearTimeout(timer);
        resolve();
      };
      this.once('close', () => reject(new Error('closed before the QMP greeting')));
    });
    await this.execute('qmp_capabilities');
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (line) this.onMessage(line);
    }
  }

  private onMessage(line: string): void {
    let msg: { QMP?: unknown; id?: string; return?: unknown; error?: { desc?: string }; event?: string; data?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.QMP !== undefined) return void this.greeted?.();
    if (msg.event) return void this.emit('event', msg.event, msg.data);
    const pending = msg.id !== undefined ? this.pending.get(String(msg.id)) : undefined;
    if (!pending) return;
    this.pending.delete(String(msg.id));
    clearTimeout(pending.timer);
    if (msg.error) pending.reject(new ConflictError(`QEMU refused: ${msg.error.desc ?? 'unknown error'}`));
    else pending.resolve(msg.return);
  }

  private onClose(): void {
    this.closed = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new ConflictError('QEMU closed its QMP monitor'));
      this.pending.delete(id);
    }
    this.emit('close');
  }
}
