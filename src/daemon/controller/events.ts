import { NotificationSource, type Notification } from '../notifications/notification.js';

/** A controller notification, shaped as GNS3 sends them on /v2/notifications. */
export type ControllerEvent = Notification;

/**
 * The one emitter every controller state change goes through:
 * `publish(action, event, projectId?)`; the notification streams subscribe to it.
 */
export class ControllerEvents extends NotificationSource {}
