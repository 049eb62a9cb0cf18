import { PcapStreamParser } from '../client/pcap-stream.js';
import { frameJson } from '../render/frame-summary.js';

/** How many packets the list keeps in view; older rows are dropped so a large capture never slows the page. */
export const PACKETS_IN_VIEW = 200;

/** The live packet list of a link's capture: reads GET …/links/{id}/pcap as it grows, one row per frame. */
export class PacketList {
  private abort: AbortController | undefined;
  private count = 0;

  constructor(private readonly body: HTMLTableSectionElement, private readonly counter: HTMLElement) {}

  /** Follows the capture until it stops or `stop()`; rows show time, source, destination, protocol, length, info. */
  async follow(projectId: string, linkId: string): Promise<void> {
    this.stop();
    this.body.replaceChildren();
    this.count = 0;
    const abort = new AbortController();
    this.abort = abort;
    const res = await fetch(`/v2/projects/${encodeURIComponent(projectId)}/links/${encodeURIComponent(linkId)}/pcap`, { signal: abort.signal });
    if (!res.ok || !res.body) throw new Error(`the capture stream answered ${res.status}`);
    const parser = new PcapStreamParser();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const records = parser.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        if (records.length) this.add(records.map((r) => frameJson(r, parser.header!.linkType, ++this.count, parser.header!.nanoseconds)));
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  }

  stop(): void {
    this.abort?.abort();
    this.abort = undefined;
  }

  private add(frames: ReturnType<typeof frameJson>[]): void {
    const rows = frames.slice(-PACKETS_IN_VIEW).map((f) => {
      const tr = document.createElement('tr');
      tr.dataset.protocol = f.protocol;
      for (const text of [String(f.number), f.time.slice(11, 26), f.src, f.dst, f.protocol, String(f.length), f.info]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.append(td);
      }
      return tr;
    });
    this.body.append(...rows);
    while (this.body.rows.length > PACKETS_IN_VIEW) this.body.deleteRow(0);
    this.counter.textContent = String(this.count);
  }
}
