import type { Notification } from './notification.js';
import type { NotificationHub } from './hub.js';
import type { NotificationSource } from './notification.js';

/** The controller stream: /v2/notifications[/ws]. */
export const CONTROLLER_CHANNEL = 'controller';
/** The compute stream: /v2/compute/notifications/ws. */
export const COMPUTE_CHANNEL = 'compute';

/** A project's stream: /v2/projects/{project_id}/notifications[/ws]. */
export function projectChannel(projectId: string): string {
  return `project:${projectId}`;
}

/** How long a stream may stay quiet before it pings: a second on the compute stream, 5 s elsewhere (as GNS3). */
export function idleMsOf(channel: string): number {
  return channel === COMPUTE_CHANNEL ? 1000 : 5000;
}

/**
 * Where a controller event goes, as GNS3 2.2 routes them: compute.*, template.* and
 * project-less log.* to the controller stream; everything else to its project's stream.
 * project.* goes to both, so that a controller client sees projects come and go.
 */
export function controllerChannels(message: Notification): string[] {
  const [kind] = message.action.split('.', 1);
  const project = message.project_id ? [projectChannel(message.project_id)] : [];
  if (kind === 'compute' || kind === 'template') return [CONTROLLER_CHANNEL];
  if (kind === 'project') return [CONTROLLER_CHANNEL, ...project];
  if (kind === 'log') return project.length ? project : [CONTROLLER_CHANNEL];
  return project;
}

/** Feeds the hub: controller events to their streams (without project_id, as GNS3), compute events to the compute stream (with it). */
export function wireNotifications(hub: NotificationHub, sources: { controller?: NotificationSource; compute?: NotificationSource }): () => void {
  const stops: (() => void)[] = [];
  if (sources.controller) {
    stops.push(sources.controller.subscribe((message) => {
      const plain = { action: message.action, event: message.event };
      for (const channel of controllerChannels(message)) hub.publish(channel, plain);
    }));
  }
  if (sources.compute) stops.push(sources.compute.subscribe((message) => hub.publish(COMPUTE_CHANNEL, message)));
  return () => stops.forEach((stop) => stop());
}
