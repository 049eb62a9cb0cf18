import { NotificationSource } from '../notifications/notification.js';

/** Anything with a node's GNS3 JSON. */
interface NodeJsonSource {
  toJSON(): Record<string, unknown>;
}

/**
 * The compute's emitter, read by `/v2/compute/notifications/ws` and by the
 * controller of this daemon. The one hook for node types: every change of a
 * node's status (start, stop, a process that died on its own) or of its JSON
 * calls `nodeUpdated(node, projectId)`, which sends GNS3's `node.updated`.
 */
export class ComputeEvents extends NotificationSource {
  /** Publishes `node.updated` with the node's JSON (what a GET of the node returns). */
  nodeUpdated(node: NodeJsonSource, projectId: string): void {
    this.publish('node.updated', node.toJSON(), projectId);
  }

  /**
   * Publishes emuctl's `capture.stopped`: a capture stopped on its own (a failed write), so that the
   * controller marks its link as no longer capturing. GNS3 clients ignore the action.
   */
  captureStopped(at: { projectId: string; nodeId: string; adapter: number; port: number }, path: string, message: string): void {
    this.publish('capture.stopped', { project_id: at.projectId, node_id: at.nodeId, adapter_number: at.adapter, port_number: at.port, pcap_file_path: path, message }, at.projectId);
  }

  /** Publishes a `log.error|warning|info` message for a project, as GNS3 computes do. */
  log(level: 'error' | 'warning' | 'info', message: string, projectId: string): void {
    this.publish(`log.${level}`, { message }, projectId);
  }
}
