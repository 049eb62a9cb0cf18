import { DomainError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Notification } from '../notifications/notification.js';
import type { ComputeReports } from './computes.js';
import type { ControllerEvents } from './events.js';
import type { Lab, Labs } from './lab.js';
import type { LinkManager } from './links.js';
import type { ControllerNode } from './node.js';
import type { NodeManager } from './nodes.js';

/**
 * The controller's live view of its computes' nodes, as GNS3's controller keeps it:
 * a compute's `node.updated` goes into the controller node and out on the project
 * stream, its log messages are passed on, and a compute whose stream
 * opens again is re-read; nodes it lost (it restarted) are placed and wired again.
 */
export class LiveState implements ComputeReports {
  constructor(private readonly deps: { labs: Labs; nodes: NodeManager; links: LinkManager; events: ControllerEvents; log: Logger }) {}

  notification(computeId: string, message: Notification): void {
    const { event } = message;
    const projectId = message.project_id ?? (typeof event.project_id === 'string' ? event.project_id : undefined);
    const lab = projectId ? this.deps.labs.find(projectId) : undefined;
    if (!lab) return;
    if (message.action === 'node.updated') {
      const node = lab.nodes.get(String(event.node_id));
      if (node && node.computeId === computeId && node.onCompute) this.deps.nodes.absorbReport(lab, node, event);
      return;
    }
    if (message.action === 'capture.stopped') {
      const node = lab.nodes.get(String(event.node_id));
      if (node && node.computeId === computeId) void this.deps.links.captureStopped(lab, node.id, Number(event.adapter_number), Number(event.port_number), String(event.pcap_file_path));
      return;
    }
    // The controller sends its own node.deleted; a compute's log messages are passed on, as GNS3 does.
    if (message.action.startsWith('log.')) this.deps.events.publish(message.action, event, lab.project.id);
  }

  reconnected(computeId: string): void {
    for (const lab of this.deps.labs.all()) {
      if (![...lab.nodes.values()].some((n) => n.computeId === computeId)) continue;
      void lab.lock.run(() => this.resync(lab, computeId)).catch((err) =>
        this.deps.log.error(`project ${lab.project.name}: cannot re-read compute ${computeId}: ${(err as Error).message}`));
    }
  }

  /** Re-reads the lab's nodes on a compute; those it does not know any more are placed again, with their links. */
  private async resync(lab: Lab, computeId: string): Promise<void> {
    const { nodes, links, events, log } = this.deps;
    const open = () => this.deps.labs.find(lab.project.id) === lab && lab.project.status === 'opened';
    if (!open()) return;
    const lost: ControllerNode[] = [];
    for (const node of lab.nodes.values()) {
      if (node.computeId !== computeId) continue;
      if (!node.onCompute) {
        lost.push(node);
        continue;
      }
      try {
        nodes.absorbReport(lab, node, await node.compute.getNode(lab.project.id, node.nodeType, node.id));
      } catch (err) {
        if (err instanceof DomainError && err.status === 404) lost.push(node);
        else log.warn(`project ${lab.project.name}: cannot re-read node ${node.name}: ${(err as Error).message}`);
      }
    }
    if (lost.length === 0 || !open()) return;
    log.info(`project ${lab.project.name}: compute ${computeId} lost ${lost.length} node(s); placing them again`);
    lab.computesReady.delete(computeId);
    for (const node of lost) {
      if (!open()) return;
      node.onCompute = false;
      try {
        await nodes.placeOnCompute(lab, node);
      } catch (err) {
        log.error(`project ${lab.project.name}: cannot place node ${node.name} again: ${(err as Error).message}`);
      }
      nodes.publishIfChanged(lab, node);
    }
    const lostIds = new Set(lost.map((n) => n.id));
    for (const link of lab.links.values()) {
      if (!link.ends.some((end) => lostIds.has(end.node.id)) || !open()) continue;
      await links.unwire(lab, link);
      await links.wire(lab, link).catch((err) => log.error(`project ${lab.project.name}: cannot wire link ${link.id} again: ${(err as Error).message}`));
      events.publish('link.updated', link.toJSON(), lab.project.id);
    }
    await lab.persist();
  }
}
