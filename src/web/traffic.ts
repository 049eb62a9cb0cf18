import type { Link } from '../client/links.js';
import type { Node } from '../client/nodes.js';
import type { BrowserApi } from './api.js';

export interface LinkRate {
  framesPerSecond: number;
  bytesPerSecond: number;
}

/** One port's counters as the compute's `stats` route gives them (emuctl's dataplane). */
interface PortStats {
  adapter_number: number;
  port_number: number;
  framesIn?: number;
  framesOut?: number;
  bytesIn?: number;
  bytesOut?: number;
}

interface Sample {
  at: number;
  frames: number;
  bytes: number;
}

/**
 * Where the page reaches a compute's routes: the controller's own compute (`local`) is this daemon's
 * `/v2/compute`; any other through the controller's forward route `/v2/computes/{id}`.
 */
function computePrefix(computeId: string): string {
  return computeId === 'local' ? 'compute' : `computes/${encodeURIComponent(computeId)}`;
}

/**
 * Polls the port counters of the started node at one end of each link (its compute's
 * `…/nodes/{n}/stats`, emuctl's dataplane counters; one call per node, remote computes through
 * the controller's forward route) and reports each link's frames/s and bytes/s (in + out of the port).
 */
export class TrafficPoller {
  private readonly last = new Map<string, Sample>();
  private timer: number | undefined;
  private busy = false;

  constructor(
    private readonly api: BrowserApi,
    private readonly projectId: string,
    private readonly topology: () => { nodes: Map<string, Node>; links: Map<string, Link> },
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
      const { nodes, links } = this.topology();
      const measured = new Map<string, Link[]>();
      for (const link of links.values()) {
        const end = link.nodes.map((e) => nodes.get(e.node_id)).find((n) => n && n.status === 'started');
        if (!end) continue;
        measured.set(end.node_id, [...(measured.get(end.node_id) ?? []), link]);
      }
      await Promise.all([...measured].map(async ([nodeId, onNode]) => {
        const node = nodes.get(nodeId)!;
        const stats = await this.api.get<PortStats[]>(`${computePrefix(node.compute_id)}/projects/${this.projectId}/${node.node_type}/nodes/${nodeId}/stats`).catch(() => undefined);
        if (!stats) return;
        const at = performance.now();
        for (const link of onNode) {
          const end = link.nodes.find((e) => e.node_id === nodeId)!;
          const port = stats.find((s) => s.adapter_number === end.adapter_number && s.port_number === end.port_number);
          if (port) this.sample(link.link_id, at, port);
        }
      }));
    } finally {
      this.busy = false;
    }
  }

  private sample(linkId: string, at: number, port: PortStats): void {
    const now = { at, frames: (port.framesIn ?? 0) + (port.framesOut ?? 0), bytes: (port.bytesIn ?? 0) + (port.bytesOut ?? 0) };
    const before = this.last.get(linkId);
    this.last.set(linkId, now);
    if (!before || now.frames < before.frames) return;
    const seconds = Math.max((now.at - before.at) / 1000, 0.001);
    this.report(linkId, { framesPerSecond: (now.frames - before.frames) / seconds, bytesPerSecond: (now.bytes - before.bytes) / seconds });
  }
}
