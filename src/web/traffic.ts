import { getLinkTraffic, type LinkTraffic } from '../client/link-traffic.js';
import type { BrowserApi } from './api.js';

export interface LinkRate {
  framesPerSecond: number;
  bytesPerSecond: number;
}

interface Sample {
  /** The port the counters were read on. */
  end: string;
  at: number;
  frames: number;
  bytes: number;
}

/**
 * Polls the controller's traffic route (one request per period, whatever the number of nodes and
 * computes) and reports each link's frames/s and bytes/s (in + out of the port it is read on).
 */
export class TrafficPoller {
  private readonly last = new Map<string, Sample>();
  private timer: number | undefined;
  private busy = false;

  constructor(
    private readonly api: BrowserApi,
    private readonly projectId: string,
    private readonly report: (linkId: string, rate: LinkRate) => void,
    private readonly periodMs = 1000,
  ) {}

  start(): void {
    this.timer = window.setInterval(() => void this.poll(), this.periodMs);
    void this.poll();
  }

  stop(): void {
    window.clearInterval(this.timer);
  }

  private async poll(): Promise<void> {
    // A hidden tab asks for nothing; the first samples after it shows again only set the baseline.
    if (this.busy) return;
    if (document.hidden) {
      this.last.clear();
      return;
    }
    this.busy = true;
    try {
      const traffic = await getLinkTraffic(this.api, this.projectId).catch(() => []);
      for (const link of traffic) this.sample(link);
    } finally {
      this.busy = false;
    }
  }

  /** Rates from the compute's own answer times; a link read on another end, or counters that went back, start over. */
  private sample(link: LinkTraffic): void {
    const now = { at: link.timestamp, frames: link.framesIn + link.framesOut, bytes: link.bytesIn + link.bytesOut, end: endOf(link) };
    const before = this.last.get(link.link_id);
    this.last.set(link.link_id, now);
    if (!before || before.end !== now.end || now.frames < before.frames) return;
    const seconds = Math.max((now.at - before.at) / 1000, 0.001);
    this.report(link.link_id, { framesPerSecond: (now.frames - before.frames) / seconds, bytesPerSecond: (now.bytes - before.bytes) / seconds });
  }
}

function endOf(link: LinkTraffic): string {
  return `${link.node_id}/${link.adapter_number}/${link.port_number}`;
}
