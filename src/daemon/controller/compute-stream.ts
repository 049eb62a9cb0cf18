import WebSocket from 'ws';
import type { Logger } from '../logger.js';
import type { Notification } from '../notifications/notification.js';
import { authorizationOf, computeAgent, computeRequest, connectionFailure, endpointUrl, errorMessageOf } from './compute-http.js';
import type { ComputeRecord } from './compute-record.js';

/** What a compute's stream reports to the registry. */
export interface ComputeStreamHandlers {
  /** A message other than a ping (node.updated, log.*). */
  notification(message: Notification): void;
  /** The stream is (again) open: what happened while it was down is unknown. */
  connected(): void;
  /** `connected`, `last_error` or the usage figures of the record changed. */
  changed(what: 'connection' | 'usage'): void;
}

const CHECK_TIMEOUT_MS = 5000;
/** A compute pings every second (GNS3 too); this much silence means it is gone. */
const SILENCE_MS = 5000;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 8000;

/**
 * Follows one remote compute as a GNS3 controller does: `GET /v2/compute/capabilities`,
 * then its `/v2/compute/notifications/ws`. Its pings give `connected` and the usage
 * figures; a closed or silent stream turns the compute `connected: false` and is
 * retried with backoff. After `close()` the compute is never contacted again.
 */
export class ComputeStream {
  private socket?: WebSocket;
  private retry?: NodeJS.Timeout;
  private silence?: NodeJS.Timeout;
  private failures = 0;
  /** Bumped by every attempt and by close(): a late answer to an older attempt is ignored. */
  private generation = 0;
  private closed = false;

  constructor(private readonly record: ComputeRecord, private readonly handlers: ComputeStreamHandlers, private readonly log?: Logger) {}

  /** Connects now (dropping the current stream and any pending retry); resolves when this attempt has succeeded or failed. */
  async connect(): Promise<void> {
    if (this.closed) return;
    const generation = ++this.generation;
    this.stopTimers();
    this.dropSocket();
    try {
      const capabilities = await this.getJson('/v2/compute/capabilities');
      if (generation !== this.generation) return;
      this.record.capabilities = capabilities;
      const socket = await this.open();
      if (generation !== this.generation) return void socket.terminate();
      this.adopt(socket, generation);
    } catch (err) {
      if (generation === this.generation) this.fail((err as Error).message);
    }
  }

  /** Stops following the compute for good: no request, no retry after this. */
  close(): void {
    this.closed = true;
    this.generation++;
    this.stopTimers();
    this.dropSocket();
  }

  private adopt(socket: WebSocket, generation: number): void {
    this.socket = socket;
    this.failures = 0;
    const { record } = this;
    if (!record.connected) this.log?.info(`compute ${record.name} connected (version ${String(record.capabilities.version)})`);
    record.connected = true;
    record.last_error = null;
    this.armSilence(socket);
    socket.on('message', (data, isBinary) => {
      if (generation !== this.generation || isBinary) return;
      this.armSilence(socket);
      this.onMessage(data.toString());
    });
    socket.once('close', (code) => {
      if (generation === this.generation) this.fail(`its notification stream closed (${code})`);
    });
    this.handlers.changed('connection');
    this.handlers.connected();
  }

  private onMessage(text: string): void {
    let message: Notification;
    try {
      message = JSON.parse(text) as Notification;
    } catch {
      return this.log?.warn(`compute ${this.record.name} sent a notification that is not JSON`);
    }
    if (typeof message?.action !== 'string' || !message.event || typeof message.event !== 'object') return;
    if (message.action === 'ping') {
      const { cpu_usage_percent: cpu, memory_usage_percent: memory } = message.event;
      this.record.cpu_usage_percent = typeof cpu === 'number' ? cpu : null;
      this.record.memory_usage_percent = typeof memory === 'number' ? memory : null;
      return this.handlers.changed('usage');
    }
    this.handlers.notification(message);
  }

  private fail(message: string): void {
    const { record } = this;
    this.generation++;
    this.dropSocket();
    this.stopTimers();
    const changed = record.connected || record.last_error !== message;
    if (changed) this.log?.warn(`compute ${record.name}: ${message}`);
    record.connected = false;
    record.last_error = message;
    record.cpu_usage_percent = null;
    record.memory_usage_percent = null;
    if (changed) this.handlers.changed('connection');
    if (this.closed) return;
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.failures++);
    this.retry = setTimeout(() => void this.connect(), delay).unref();
  }

  /** Opens the websocket with the compute's credentials; rejects with the reason it could not. */
  private open(): Promise<WebSocket> {
    const { record } = this;
    const url = `${endpointUrl(record).replace(/^http/, 'ws')}/v2/compute/notifications/ws`;
    const authorization = authorizationOf(record);
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const socket = new WebSocket(url, { headers, handshakeTimeout: CHECK_TIMEOUT_MS, perMessageDeflate: false, agent: computeAgent(record) });
    this.socket = socket;
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(socket));
      socket.once('unexpected-response', (_req, res) => {
        reject(new Error(`its notification stream answered HTTP ${res.statusCode}`));
        socket.terminate();
      });
      socket.on('error', (err) => reject(new Error(`its notification stream failed: ${connectionFailure(err as NodeJS.ErrnoException)}`)));
    });
  }

  private armSilence(socket: WebSocket): void {
    if (this.silence) return void this.silence.refresh();
    this.silence = setTimeout(() => {
      this.silence = undefined;
      if (socket === this.socket) this.fail(`no notification for ${SILENCE_MS / 1000} s`);
    }, SILENCE_MS).unref();
  }

  private dropSocket(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.terminate();
  }

  private stopTimers(): void {
    clearTimeout(this.retry);
    clearTimeout(this.silence);
    this.retry = this.silence = undefined;
  }

  private async getJson(path: string): Promise<Record<string, unknown>> {
    const answer = await computeRequest(this.record, 'GET', path, { timeoutMs: CHECK_TIMEOUT_MS });
    if (answer.status >= 400) throw new Error(`${path} answered ${answer.status}: ${errorMessageOf(answer)}`);
    return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  }
}
