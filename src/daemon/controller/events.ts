import { EventEmitter } from 'node:events';

/** A controller notification, shaped as GNS3 sends them on /v2/notifications. */
export interface ControllerEvent {
  action: string;
  event: Record<string, unknown>;
  project_id?: string;
}

/** The one emitter every controller state change goes through (for notifications, later). */
export class ControllerEvents extends EventEmitter {
  /** Publishes `action` (e.g. `project.updated`) with its object. */
  publish(action: string, event: Record<string, unknown>, projectId?: string): void {
    const message: ControllerEvent = { action, event, ...(projectId ? { project_id: projectId } : {}) };
    this.emit('event', message);
  }
}
