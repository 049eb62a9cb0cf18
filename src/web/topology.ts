import type { Link } from '../client/links.js';
import type { Node } from '../client/nodes.js';
import { layoutNodes, placeBeside, type Point } from './layout.js';
import type { LinkRate } from './traffic.js';

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** frames/s and bytes/s as the page prints them. */
export function rateText(rate: LinkRate): string {
  const bytes = rate.bytesPerSecond >= 1e6 ? `${(rate.bytesPerSecond / 1e6).toFixed(1)} MB/s` : rate.bytesPerSecond >= 1e3 ? `${(rate.bytesPerSecond / 1e3).toFixed(1)} kB/s` : `${Math.round(rate.bytesPerSecond)} B/s`;
  return `${rate.framesPerSecond.toFixed(rate.framesPerSecond < 10 ? 1 : 0)} f/s ${bytes}`;
}

/** The project drawn in SVG: one <g class="node"> per node, one <g class="link"> per link; updated in place. */
export class TopologyView {
  private readonly root: SVGSVGElement;
  private readonly linkLayer: SVGGElement;
  private readonly nodeLayer: SVGGElement;
  private positions = new Map<string, Point>();
  private readonly nodeEls = new Map<string, SVGGElement>();
  private readonly linkEls = new Map<string, SVGGElement>();
  private readonly links = new Map<string, Link>();

  constructor(container: HTMLElement, private readonly onSelect: (kind: 'node' | 'link', id: string) => void) {
    container.replaceChildren();
    this.root = svg('svg', { id: 'topology', role: 'img' });
    this.linkLayer = svg('g', { class: 'links' });
    this.nodeLayer = svg('g', { class: 'nodes' });
    this.root.append(this.linkLayer, this.nodeLayer);
    container.append(this.root);
  }

  /** Draws everything at once (one layout). */
  draw(nodes: Node[], links: Link[]): void {
    this.positions = layoutNodes(nodes, links);
    this.nodeEls.clear();
    this.linkEls.clear();
    this.links.clear();
    this.nodeLayer.replaceChildren(...nodes.map((n) => this.nodeElement(n)));
    this.linkLayer.replaceChildren(...links.map((l) => this.linkElement(l)));
    this.fit();
    this.root.dataset.drawn = 'true';
  }

  upsertNode(node: Node): void {
    const old = this.nodeEls.get(node.node_id);
    if (!old) {
      if (!this.positions.has(node.node_id)) this.positions.set(node.node_id, (node.x || node.y) ? { x: node.x ?? 0, y: node.y ?? 0 } : placeBeside(this.positions));
      this.nodeLayer.append(this.nodeElement(node));
      this.fit();
      return;
    }
    old.setAttribute('class', `node status-${node.status}`);
    old.dataset.status = node.status;
    old.querySelector('text')!.textContent = node.name;
    old.dataset.name = node.name;
  }

  removeNode(nodeId: string): void {
    this.nodeEls.get(nodeId)?.remove();
    this.nodeEls.delete(nodeId);
  }

  upsertLink(link: Link): void {
    const old = this.linkEls.get(link.link_id);
    if (old) old.replaceWith(this.linkElement(link));
    else this.linkLayer.append(this.linkElement(link));
  }

  removeLink(linkId: string): void {
    this.linkEls.get(linkId)?.remove();
    this.linkEls.delete(linkId);
    this.links.delete(linkId);
  }

  /** Shows a link's traffic: its numbers, and a width and colour that grow with frames/s. */
  showRate(linkId: string, rate: LinkRate): void {
    const el = this.linkEls.get(linkId);
    if (!el) return;
    const level = rate.framesPerSecond <= 0 ? 0 : Math.min(5, 1 + Math.floor(Math.log10(1 + rate.framesPerSecond)));
    el.dataset.frames = rate.framesPerSecond.toFixed(2);
    el.dataset.bytes = String(Math.round(rate.bytesPerSecond));
    el.querySelector('line')!.setAttribute('class', `wire traffic-${level}`);
    el.querySelector('text.rate')!.textContent = rate.framesPerSecond > 0 ? rateText(rate) : '';
  }

  private nodeElement(node: Node): SVGGElement {
    const p = this.positions.get(node.node_id)!;
    const g = svg('g', { class: `node status-${node.status}`, transform: `translate(${p.x} ${p.y})`, tabindex: 0 });
    g.dataset.nodeId = node.node_id;
    g.dataset.name = node.name;
    g.dataset.status = node.status;
    g.append(svg('circle', { r: 18 }), svg('text', { y: 34, 'text-anchor': 'middle' }));
    g.querySelector('text')!.textContent = node.name;
    const type = svg('text', { y: 4, 'text-anchor': 'middle', class: 'kind' });
    type.textContent = KIND_LETTERS[node.node_type] ?? node.node_type.slice(0, 2).toUpperCase();
    g.append(type);
    g.addEventListener('click', () => this.onSelect('node', node.node_id));
    this.nodeEls.set(node.node_id, g);
    return g;
  }

  private linkElement(link: Link): SVGGElement {
    this.links.set(link.link_id, link);
    const [a, b] = link.nodes.map((e) => this.positions.get(e.node_id) ?? { x: 0, y: 0 });
    const flags = [link.suspend ? 'suspended' : '', link.capturing ? 'capturing' : '', Object.keys(link.filters ?? {}).length ? 'filtered' : ''].filter(Boolean);
    const g = svg('g', { class: ['link', ...flags].join(' '), tabindex: 0 });
    g.dataset.linkId = link.link_id;
    const line = svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'wire traffic-0' });
    const hit = svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'hit' });
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    const rate = svg('text', { x: mid.x, y: mid.y - 6, 'text-anchor': 'middle', class: 'rate' });
    const note = svg('text', { x: mid.x, y: mid.y + 14, 'text-anchor': 'middle', class: 'flags' });
    note.textContent = flags.map((f) => FLAG_SIGNS[f]).join(' ');
    g.append(line, hit, rate, note);
    g.addEventListener('click', () => this.onSelect('link', link.link_id));
    this.linkEls.set(link.link_id, g);
    return g;
  }

  /** The viewBox that holds every node. */
  private fit(): void {
    const ps = [...this.positions.values()];
    if (!ps.length) return;
    const xs = ps.map((p) => p.x);
    const ys = ps.map((p) => p.y);
    const [x0, y0] = [Math.min(...xs) - 60, Math.min(...ys) - 40];
    this.root.setAttribute('viewBox', `${x0} ${y0} ${Math.max(...xs) - x0 + 60} ${Math.max(...ys) - y0 + 60}`);
  }
}

const KIND_LETTERS: Record<string, string> = { vpcs: 'PC', ethernet_switch: 'SW', ethernet_hub: 'HUB', qemu: 'VM', docker: 'CT', cloud: 'CL', nat: 'NAT' };
const FLAG_SIGNS: Record<string, string> = { suspended: '⏸ suspended', capturing: '● capturing', filtered: '⚙ filters' };
