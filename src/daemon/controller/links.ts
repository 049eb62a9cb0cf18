import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { PortAddress } from '../compute/compute-api.js';
import { checkCaptureFileName } from '../compute/capture-files.js';
import { validateFilters } from '../dataplane/filters/catalog.js';
import { ConflictError, InvalidError } from '../errors.js';
import type { ComputeRegistry } from './computes.js';
import type { ControllerEvents } from './events.js';
import type { Lab } from './lab.js';
import { ControllerLink, type LinkEnd } from './link.js';
import type { LINK_CAPTURE_SCHEMA, LINK_CREATE_SCHEMA, LINK_UPDATE_SCHEMA } from '../schemas/lab.js';
import type { FromSchema } from '../schemas/validation.js';

/** A link create body, as LINK_CREATE_SCHEMA accepts it. */
export type LinkCreate = FromSchema<typeof LINK_CREATE_SCHEMA>;
/** A link update body, as LINK_UPDATE_SCHEMA accepts it. */
export type LinkUpdate = FromSchema<typeof LINK_UPDATE_SCHEMA>;
/** A link's start_capture body, as LINK_CAPTURE_SCHEMA accepts it. */
export type LinkCapture = FromSchema<typeof LINK_CAPTURE_SCHEMA>;
type LinkEndBody = LinkCreate['nodes'][number];

/** Wires node ports together with UDP tunnels, and runs captures and filters on them. */
export class LinkManager {
  constructor(private readonly deps: { computes: ComputeRegistry; events: ControllerEvents }) {}

  /**
   * Creates a link: a UDP port on each end's compute, a nio_udp on each end pointing at the other.
   * Its two ports are held while the computes wire it and until it is on disk; nodes being deleted
   * cannot be linked.
   */
  async create(lab: Lab, body: LinkCreate): Promise<ControllerLink> {
    if (body.nodes.length !== 2) throw new InvalidError(`A link has exactly two ends (got ${body.nodes.length})`);
    const link = await lab.lock.run(async () => {
      const ends = body.nodes.map((e) => this.endOf(lab, e)) as [LinkEnd, LinkEnd];
      const [a, b] = ends;
      if (a.node.id === b.node.id) throw new ConflictError('Cannot connect to itself');
      const typeA = a.node.port(a.adapter_number, a.port_number).link_type;
      const typeB = b.node.port(b.adapter_number, b.port_number).link_type;
      if (typeA !== typeB) throw new ConflictError(`Cannot connect an ${typeA} port to a ${typeB} port`);
      const made = new ControllerLink(body.link_id ?? randomUUID(), lab.project.id, ends, typeA);
      if (lab.links.has(made.id)) throw new ConflictError(`Link ID ${made.id} already exists`);
      made.filters = body.filters ? validateFilters(body.filters) : {};
      made.suspend = body.suspend ?? false;
      made.linkStyle = body.link_style ?? {};
      return made;
    });
    await lab.withLinkPorts(link, { refuseTaken: true }, async () => {
      await this.wire(lab, link);
      try {
        await lab.addLink(link);
      } catch (err) {
        await this.unwire(lab, link);
        throw err;
      }
    });
    this.deps.events.publish('link.created', link.toJSON(), lab.project.id);
    return link;
  }

  /**
   * Adds the two NIOs of a link (on create and when a project is reopened). On failure nothing stays
   * taken: the first NIO is removed, and a port no NIO took is given back to its compute.
   */
  async wire(lab: Lab, link: ControllerLink): Promise<void> {
    const [a, b] = link.ends;
    const unused = new Set<LinkEnd>();
    try {
      a.lport = await a.node.compute.allocateUdpPort(lab.project.id);
      unused.add(a);
      b.lport = await b.node.compute.allocateUdpPort(lab.project.id);
      unused.add(b);
      await this.addNios(lab, link, unused);
    } catch (err) {
      for (const end of unused) await end.node.compute.releaseUdpPort(lab.project.id, end.lport!).catch(() => {});
      for (const end of link.ends) end.lport = undefined;
      throw err;
    }
  }

  private async addNios(lab: Lab, link: ControllerLink, unused: Set<LinkEnd>): Promise<void> {
    const [a, b] = link.ends;
    // Each NIO filters the frames that enter from its tunnel, so the same filters on both ends act on both directions, as GNS3's do.
    const nioFor = (end: LinkEnd, other: LinkEnd) => ({
      type: 'nio_udp' as const,
      lport: end.lport!,
      rhost: this.deps.computes.hostOf(other.node.computeId),
      rport: other.lport!,
      filters: link.filters,
      suspend: link.suspend,
    });
    await a.node.lock.run(() => a.node.compute.addNio(this.at(lab, a), nioFor(a, b)));
    unused.delete(a);
    try {
      await b.node.lock.run(() => b.node.compute.addNio(this.at(lab, b), nioFor(b, a)));
      unused.delete(b);
    } catch (err) {
      await a.node.compute.removeNio(this.at(lab, a)).catch(() => {});
      throw err;
    }
  }

  /** Changes filters, suspend, style or labels; filters (on both ends) and suspend reach the dataplane at once. If the write fails, the link is as it was. */
  update(lab: Lab, link: ControllerLink, body: LinkUpdate): Promise<ControllerLink> {
    return link.lock.run(async () => {
      const before = { filters: link.filters, suspend: link.suspend, linkStyle: link.linkStyle, labels: link.ends.map((e) => e.label) };
      if (body.filters !== undefined) {
        const filters = validateFilters(body.filters);
        for (const end of link.ends) await end.node.compute.updateNio(this.at(lab, end), { filters });
        link.filters = filters;
      }
      if (body.suspend !== undefined && body.suspend !== link.suspend) {
        link.suspend = body.suspend;
        for (const end of link.ends) await end.node.compute.updateNio(this.at(lab, end), { suspend: link.suspend });
      }
      if (body.link_style !== undefined) link.linkStyle = body.link_style;
      // As GNS3: each end is found by its node, and only a label given (not null) replaces the one it has.
      for (const e of body.nodes ?? []) {
        const end = link.ends.find((x) => x.node.id === e.node_id);
        if (end && e.label) end.label = e.label;
      }
      const restore = () => {
        Object.assign(link, { filters: before.filters, suspend: before.suspend, linkStyle: before.linkStyle });
        link.ends.forEach((e, i) => (e.label = before.labels[i]));
      };
      try {
        await lab.save([link], restore);
      } catch (err) {
        for (const end of link.ends) await end.node.compute.updateNio(this.at(lab, end), { filters: link.filters, suspend: link.suspend }).catch(() => {});
        throw err;
      }
      this.deps.events.publish('link.updated', link.toJSON(), lab.project.id);
      return link;
    });
  }

  /**
   * Removes the link: gone from the project and on disk first, then both NIOs are removed (the UDP
   * ports are freed); its ports stay held until then. Two removals of one link are one removal.
   */
  remove(lab: Lab, link: ControllerLink): Promise<void> {
    return lab.removeOnce(link.id, async () => {
      if (lab.links.get(link.id) !== link) return;
      await lab.withLinkPorts(link, { refuseTaken: false }, async () => {
        await lab.dropLink(link);
        await link.lock.run(() => this.unwire(lab, link));
      });
      this.deps.events.publish('link.deleted', link.toJSON(), lab.project.id);
    });
  }

  /**
   * Removes links as part of a bigger change (a node delete's cascade): `drop` takes them out of the
   * lab with the rest in one write, undone whole if it fails; their NIOs and capture go only once
   * that is on disk. Their ports stay held until then, and a delete of one of them meanwhile is this one.
   */
  async removeAlong(lab: Lab, links: ControllerLink[], drop: () => Promise<void>): Promise<void> {
    const holding = (i: number): Promise<void> =>
      i < links.length ? lab.withLinkPorts(links[i], { refuseTaken: false }, () => holding(i + 1)) : drop().then(() => this.unwireAll(lab, links));
    const removal = holding(0);
    for (const link of links) void lab.removeOnce(link.id, () => removal).catch(() => {});
    await removal;
    for (const link of links) this.deps.events.publish('link.deleted', link.toJSON(), lab.project.id);
  }

  private async unwireAll(lab: Lab, links: ControllerLink[]): Promise<void> {
    for (const link of links) await link.lock.run(() => this.unwire(lab, link));
  }

  /** Removes the NIOs of a link from the computes (a missing one is fine). */
  async unwire(lab: Lab, link: ControllerLink): Promise<void> {
    if (link.capture) await link.capture.end.node.compute.stopCapture(this.at(lab, link.capture.end)).catch(() => {});
    link.capture = null;
    for (const end of link.ends) {
      if (end.node.onCompute) await end.node.compute.removeNio(this.at(lab, end)).catch(() => {});
      end.lport = undefined;
    }
  }

  /** Starts (or restarts, into a fresh file) a capture on the end GNS3 would choose. */
  startCapture(lab: Lab, link: ControllerLink, body: LinkCapture): Promise<ControllerLink> {
    return link.lock.run(async () => {
      const fileName = checkCaptureFileName(body.capture_file_name ?? link.defaultCaptureFileName());
      const end = this.captureEnd(link);
      if (link.capture && link.capture.end !== end) await link.capture.end.node.compute.stopCapture(this.at(lab, link.capture.end)).catch(() => {});
      const { pcap_file_path } = await end.node.compute.startCapture(this.at(lab, end), { capture_file_name: fileName, data_link_type: body.data_link_type });
      link.capture = link.lastCapture = { end, fileName, path: pcap_file_path };
      this.deps.events.publish('link.updated', link.toJSON(), lab.project.id);
      return link;
    });
  }

  stopCapture(lab: Lab, link: ControllerLink): Promise<ControllerLink> {
    return link.lock.run(async () => {
      if (link.capture) {
        await link.capture.end.node.compute.stopCapture(this.at(lab, link.capture.end)).catch(() => {});
        link.capture = null;
      }
      this.deps.events.publish('link.updated', link.toJSON(), lab.project.id);
      return link;
    });
  }

  /** A compute stopped the capture on (node, adapter, port) by itself (a failed write): the link says it no longer captures. */
  captureStopped(lab: Lab, nodeId: string, adapter: number, port: number, path: string): Promise<void> {
    const link = lab.linkOnPort(nodeId, adapter, port);
    if (!link) return Promise.resolve();
    return link.lock.run(async () => {
      const c = link.capture;
      if (!c || c.path !== path || c.end.node.id !== nodeId || c.end.adapter_number !== adapter || c.end.port_number !== port) return;
      link.capture = null;
      this.deps.events.publish('link.updated', link.toJSON(), lab.project.id);
    });
  }

  /** The live capture stream of a link, from its compute. */
  async pcapStream(lab: Lab, link: ControllerLink): Promise<Readable> {
    if (!link.capture) throw new ConflictError(`Link ${link.id} is not capturing`);
    return link.capture.end.node.compute.pcapStream(this.at(lab, link.capture.end));
  }

  private endOf(lab: Lab, e: LinkEndBody): LinkEnd {
    const node = lab.liveNode(e.node_id);
    node.port(e.adapter_number, e.port_number);
    return { node, adapter_number: e.adapter_number, port_number: e.port_number, label: e.label };
  }

  private at(lab: Lab, end: LinkEnd): PortAddress {
    return { projectId: lab.project.id, nodeType: end.node.nodeType, nodeId: end.node.id, adapter: end.adapter_number, port: end.port_number };
  }

  /** GNS3's capture side: a local always-running node, then any always-running one, then a local running one, then any running one. */
  private captureEnd(link: ControllerLink): LinkEnd {
    const running = link.ends.filter((e) => e.node.status === 'started');
    const pick =
      running.find((e) => e.node.computeId === 'local' && e.node.alwaysRunning) ??
      running.find((e) => e.node.alwaysRunning) ??
      running.find((e) => e.node.computeId === 'local') ??
      running[0];
    if (!pick) throw new ConflictError('Cannot capture because there is no running device on this link');
    return pick;
  }
}
