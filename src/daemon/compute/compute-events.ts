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

  /** Publishes a `log.error|warning|info` message for a project, as GNS3 computes do. */
  log(level: 'error' | 'warning' | 'info', message: string, projectId: string): void {
    this.publish(`log.${level}`, { message }, projectId);
  }
}
