import { EventEmitter } from 'node:events';

/** One message of a GNS3 notification stream: `{action, event}`, plus `project_id` on the compute stream. */
export interface Notification {
  action: string;
  event: Record<string, unknown>;
  project_id?: string;
}

/** What a ping carries: the host's CPU and memory use, in percent. */
export interface HostUsage {
  cpu_usage_percent: number;
  memory_usage_percent: number;
}

/** An emitter of notifications: every state change of a controller or a compute goes through one. */
export class NotificationSource extends EventEmitter {
  constructor() {
    super();
    this.setMaxListeners(0);
  }

  /** Publishes `action` (e.g. `node.updated`) with the object's JSON, for the project `projectId` if given. */
  publish(action: string, event: Record<string, unknown>, projectId?: string): void {
    const message: Notification = { action, event, ...(projectId ? { project_id: projectId } : {}) };
    this.emit('event', message);
  }

  /** Calls `listener` with every notification published from now on; returns the function that stops it. */
  subscribe(listener: (message: Notification) => void): () => void {
    this.on('event', listener);
    return () => this.off('event', listener);
  }
}
