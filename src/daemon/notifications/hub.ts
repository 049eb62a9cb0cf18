import type { Logger } from '../logger.js';
import type { HostUsage, Notification } from './notification.js';

/** How one client receives its messages: a websocket or a chunked HTTP response. */
export interface NotificationTransport {
  /** Sends one message; `flushed` runs once the transport has handed it to the kernel (or failed). */
  send(text: string, flushed: (err?: Error | null) => void): void;
  /** Cuts the connection at once (the client is too slow, or the daemon stops). */
  close(why: 'overflow' | 'shutdown'): void;
}

export interface HubOptions {
  log: Logger;
  /** What pings carry. */
  usage: () => HostUsage;
  /** Messages a client may have unsent before it is dropped. */
  maxPendingMessages?: number;
  /** Bytes a client may have unsent before it is dropped. */
  maxPendingBytes?: number;
}

/** One subscriber: its transport, what it has not yet flushed, and its idle-ping timer. */
class Client {
  pendingMessages = 0;
  pendingBytes = 0;
  dropped = false;
  timer?: NodeJS.Timeout;

  constructor(readonly channel: string, readonly label: string, readonly transport: NotificationTransport) {}
}

/** Messages a client may leave unsent before it is dropped (unless the hub is told otherwise). */
export const DEFAULT_MAX_PENDING_MESSAGES = 2048;
/** Bytes a client may leave unsent before it is dropped (unless the hub is told otherwise). */
export const DEFAULT_MAX_PENDING_BYTES = 4 * 1024 * 1024;

/**
 * The notification channels (`controller`, `compute`, `project:<id>`) and their clients.
 * Each client gets a ping at once, every message of its channel, and a ping whenever its
 * channel stayed quiet for `idleMs`. A client whose unsent messages exceed the bounds is
 * dropped and logged; nobody else ever waits for it.
 */
export class NotificationHub {
  private readonly channels = new Map<string, Set<Client>>();
  private readonly maxMessages: number;
  private readonly maxBytes: number;

  constructor(private readonly opts: HubOptions) {
    this.maxMessages = opts.maxPendingMessages ?? DEFAULT_MAX_PENDING_MESSAGES;
    this.maxBytes = opts.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
  }

  /** Adds a client to a channel (sending its first ping at once); returns the function that removes it. */
  attach(channel: string, transport: NotificationTransport, opts: { label: string; idleMs: number }): () => void {
    const client = new Client(channel, opts.label, transport);
    let clients = this.channels.get(channel);
    if (!clients) this.channels.set(channel, (clients = new Set()));
    clients.add(client);
    client.timer = setInterval(() => this.send(client, this.ping()), opts.idleMs).unref();
    this.send(client, this.ping());
    return () => this.detach(client);
  }

  /** Sends a message to every client of a channel (serialised once). */
  publish(channel: string, message: Notification): void {
    const clients = this.channels.get(channel);
    if (!clients?.size) return;
    const text = JSON.stringify(message);
    for (const client of clients) {
      client.timer?.refresh();
      this.send(client, text);
    }
  }

  /** How many clients a channel has (all channels without an argument). */
  clientCount(channel?: string): number {
    if (channel !== undefined) return this.channels.get(channel)?.size ?? 0;
    let n = 0;
    for (const clients of this.channels.values()) n += clients.size;
    return n;
  }

  /** Disconnects every client (daemon shutdown). */
  close(): void {
    for (const clients of [...this.channels.values()]) {
      for (const client of [...clients]) {
        this.detach(client);
        client.transport.close('shutdown');
      }
    }
  }

  private ping(): string {
    return JSON.stringify({ action: 'ping', event: this.opts.usage() });
  }

  private send(client: Client, text: string): void {
    if (client.dropped) return;
    const bytes = Buffer.byteLength(text);
    if (client.pendingMessages + 1 > this.maxMessages || client.pendingBytes + bytes > this.maxBytes) {
      this.opts.log.warn(`notification client ${client.label} dropped: ${client.pendingMessages} messages (${client.pendingBytes} bytes) unsent`);
      this.detach(client);
      client.transport.close('overflow');
      return;
    }
    client.pendingMessages++;
    client.pendingBytes += bytes;
    client.transport.send(text, () => {
      client.pendingMessages--;
      client.pendingBytes -= bytes;
    });
  }

  private detach(client: Client): void {
    if (client.dropped) return;
    client.dropped = true;
    clearInterval(client.timer);
    const clients = this.channels.get(client.channel);
    clients?.delete(client);
    if (clients?.size === 0) this.channels.delete(client.channel);
  }
}
