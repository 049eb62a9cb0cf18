import { apiPath, type ApiClient } from './api.js';
import { emuctlOnly } from './server-kind.js';

/** One link's port counters, read on one end (emuctl's traffic route). */
export interface LinkTraffic {
  link_id: string;
  /** The end the counters were read on. */
  node_id: string;
  adapter_number: number;
  port_number: number;
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  drops: number;
  errors: number;
  /** When the end's compute answered, in milliseconds since the epoch. */
  timestamp: number;
}

/**
 * GET /v2/projects/{project_id}/traffic (emuctl only): the counters of each link with an end on a
 * started node that has them; links without such an end are absent.
 */
export function getLinkTraffic(api: ApiClient, projectId: string): Promise<LinkTraffic[]> {
  return api.get<LinkTraffic[]>(apiPath('projects', projectId, 'traffic'));
}

/** getLinkTraffic, with a 404 from a server that is not an emuctl daemon (GNS3) said in one line. */
export function readLinkTraffic(api: ApiClient, projectId: string): Promise<LinkTraffic[]> {
  return emuctlOnly(api, 'link counters need', () => getLinkTraffic(api, projectId));
}

/** A link's rates between two samples of its counters, per second. */
export interface LinkRates {
  framesInPerSecond: number;
  framesOutPerSecond: number;
  bytesInPerSecond: number;
  bytesOutPerSecond: number;
}

const COUNTERS = ['framesIn', 'framesOut', 'bytesIn', 'bytesOut'] as const;

const endOf = (t: LinkTraffic) => `${t.node_id}/${t.adapter_number}/${t.port_number}`;

/**
 * Turns consecutive samples of the traffic route into rates, timed by the compute's own answer
 * times. A link read on another end, or whose counters went down (its port was made again),
 * starts over: it has no rates until its next sample.
 */
export class LinkRateTracker {
  private readonly last = new Map<string, LinkTraffic>();

  /** Records a sample; the rates of each link since its previous sample, when they can be told. */
  sample(traffic: readonly LinkTraffic[]): Map<string, LinkRates> {
    const rates = new Map<string, LinkRates>();
    for (const now of traffic) {
      const before = this.last.get(now.link_id);
      this.last.set(now.link_id, now);
      if (!before || endOf(before) !== endOf(now) || COUNTERS.some((c) => now[c] < before[c]) || now.timestamp <= before.timestamp) continue;
      const seconds = (now.timestamp - before.timestamp) / 1000;
      const per = (c: (typeof COUNTERS)[number]) => (now[c] - before[c]) / seconds;
      rates.set(now.link_id, {
        framesInPerSecond: per('framesIn'),
        framesOutPerSecond: per('framesOut'),
        bytesInPerSecond: per('bytesIn'),
        bytesOutPerSecond: per('bytesOut'),
      });
    }
    for (const id of [...this.last.keys()]) if (!traffic.some((t) => t.link_id === id)) this.last.delete(id);
    return rates;
  }
}
