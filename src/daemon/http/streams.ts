import type { Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UnavailableError } from '../errors.js';
import { LogThrottle } from '../log-throttle.js';
import type { Logger } from '../logger.js';

/** Anything that stays open for a while and says when it closes: an HTTP response, a socket, a websocket. */
export interface Closable {
  once(event: 'close', listener: () => void): unknown;
}

/**
 * The long-lived answers (pcap streams, notification streams) a daemon keeps open at once, at most
 * `max`. They are exempt from the request timeout (it only bounds receiving a request), so this bound
 * is what keeps them from piling up.
 */
export class StreamSlots {
  private open = 0;
  private readonly throttle = new LogThrottle(10_000);

  constructor(readonly max: number, private readonly log: Logger) {}

  /** Holds a slot until `stream` closes; UnavailableError (503) when every slot is taken. */
  hold(stream: Closable, what: string): void {
    if (this.open >= this.max) {
      const { log, held } = this.throttle.pass('full');
      if (log) this.log.warn(`refusing a ${what}: ${this.max} long-lived streams are open (the limit, max_streams)${held ? `; ${held} more refused since the last report` : ''}`);
      throw new UnavailableError(`Too many long-lived streams are open (the limit is ${this.max}): close one and retry`);
    }
    this.open++;
    stream.once('close', () => this.open--);
  }

  /** Streams open now. */
  get count(): number {
    return this.open;
  }
}

/**
 * Answers with a live pcap stream: takes a stream slot, then copies `source` into the response. When
 * the source fails the response still ends cleanly (the client keeps a valid pcap of what came);
 * when the client goes away the source is destroyed.
 */
export async function sendPcap(res: Response, slots: StreamSlots, open: () => Promise<Readable>, log: Logger): Promise<void> {
  slots.hold(res, 'pcap stream');
  const source = await open();
  res.status(200).setHeader('Content-Type', 'application/vnd.tcpdump.pcap');
  try {
    await pipeline(source, res, { end: false });
  } catch (err) {
    if (res.destroyed) return; // the client went away; pipeline destroyed the source
    log.warn(`pcap stream ${res.req.originalUrl} ended early: ${(err as Error).message}`);
  }
  res.end();
}

/** Sends a stream as the answer (200); a client that goes away ends the stream, never the daemon. */
export async function sendStream(res: Response, stream: Readable, contentType: string, headers: Record<string, string> = {}): Promise<void> {
  res.status(200).setHeader('Content-Type', contentType);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  await pipeline(stream, res).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
  });
}
