import { PcapStreamParser } from '../client/pcap-stream.js';
import { frameJson } from '../render/frame-summary.js';
import { apiUrl } from './api.js';

/** How many packets the list keeps in view; older rows are dropped so a large capture never slows the page. */
export const PACKETS_IN_VIEW = 200;

/** The live packet list of a link's capture: reads GET …/links/{id}/pcap as it grows, one row per frame. */
export class PacketList {
  private abort: AbortController | undefined;
  private count = 0;
  /** Rows decoded since the last frame painted (at most PACKETS_IN_VIEW), appended together on the next animation frame. */
  private pending: HTMLTableRowElement[] = [];
  private flushing = false;

  constructor(private readonly body: HTMLTableSectionElement, private readonly counter: HTMLElement) {}

  /** Follows the capture until it stops or `stop()`; rows show time, source, destination, protocol, length, info. */
  async follow(projectId: string, linkId: string): Promise<void> {
    this.stop();
    this.body.replaceChildren();
    this.pending = [];
    this.count = 0;
    const abort = new AbortController();
    this.abort = abort;
    const res = await fetch(apiUrl(`projects/${encodeURIComponent(projectId)}/links/${encodeURIComponent(linkId)}/pcap`), { signal: abort.signal });
    if (!res.ok || !res.body) throw new Error(`the capture stream answered ${res.status}`);
    const parser = new PcapStreamParser();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const records = parser.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        // Only the frames that can stay in view are decoded; the others are counted.
        const first = this.count + 1;
        this.count += records.length;
        const shown = records.slice(-PACKETS_IN_VIEW);
        const offset = first + records.length - shown.length;
        this.add(shown.map((r, i) => frameJson(r, parser.header!.linkType, offset + i, parser.header!.nanoseconds)));
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
    for (const f of frames) {
      const tr = document.createElement('tr');
      tr.dataset.protocol = f.protocol;
      for (const text of [String(f.number), f.time.slice(11, 26), f.src, f.dst, f.protocol, String(f.length), f.info]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.append(td);
      }
      this.pending.push(tr);
    }
    if (this.pending.length > PACKETS_IN_VIEW) this.pending.splice(0, this.pending.length - PACKETS_IN_VIEW);
    if (this.flushing) return;
    this.flushing = true;
    requestAnimationFrame(() => this.flush());
  }

  /** One DOM update per painted frame, however fast the frames come. */
  private flush(): void {
    this.flushing = false;
    this.body.append(...this.pending);
    this.pending = [];
    while (this.body.rows.length > PACKETS_IN_VIEW) this.body.deleteRow(0);
    this.counter.textContent = String(this.count);
  }
}
