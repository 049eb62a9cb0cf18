import type { IncomingMessage } from 'node:http';
import type { Response, Router } from 'express';
import type { WebSocket } from 'ws';
import type { ProjectManager } from '../../controller/projects.js';
import type { Logger } from '../../logger.js';
import { COMPUTE_CHANNEL, CONTROLLER_CHANNEL, idleMsOf, projectChannel } from '../../notifications/channels.js';
import type { NotificationHub } from '../../notifications/hub.js';
import { JSON_CONTENT_TYPE } from '../json-response.js';
import { route } from '../route.js';
import type { StreamSlots } from '../streams.js';
import { RouteWebSockets } from './upgrade.js';

export const CONTROLLER_NOTIFICATIONS_ROUTE = '/v2/notifications';
export const CONTROLLER_NOTIFICATIONS_WS_ROUTE = '/v2/notifications/ws';
export const PROJECT_NOTIFICATIONS_ROUTE = '/v2/projects/{project_id}/notifications';
export const PROJECT_NOTIFICATIONS_WS_ROUTE = '/v2/projects/{project_id}/notifications/ws';
export const COMPUTE_NOTIFICATIONS_WS_ROUTE = '/v2/compute/notifications/ws';

export interface NotificationRouteDeps {
  hub: NotificationHub;
  log: Logger;
  /** Bounds how many streams are open at once (503 beyond). */
  streams: StreamSlots;
  /** Present on a controller: the controller and project streams. */
  projects?: ProjectManager;
  /** True on a compute: the compute stream. */
  compute?: boolean;
}

type ChannelOf = (params: Record<string, string>) => string;

/**
 * The notification streams: each a websocket route (taken over from the server's
 * `upgrade` event) and, where GNS3 has one, an HTTP long-poll route sending one
 * JSON message per line. Clients only subscribe; what they send is ignored.
 */
export function notificationRoutes(router: Router, deps: NotificationRouteDeps): void {
  const { hub, log, projects, streams } = deps;
  const sockets = new RouteWebSockets(64 * 1024);

  const websocket = (template: string, channelOf: ChannelOf) =>
    route(router, { method: 'get', template, raw: true }, ({ params, req, res }) => {
      const channel = channelOf(params);
      sockets.requireUpgrade(req, template);
      streams.hold(req.socket, 'notification stream');
      sockets.accept(req, res, template, (ws) => attachSocket(ws, channel, `${peerOf(req)} on ${req.url}`));
    });

  const longPoll = (template: string, channelOf: ChannelOf) =>
    route(router, { method: 'get', template, raw: true }, ({ params, req, res }) => {
      const channel = channelOf(params);
      streams.hold(res, 'notification stream');
      res.writeHead(200, { 'Content-Type': JSON_CONTENT_TYPE, 'Cache-Control': 'no-cache' });
      attachResponse(res, channel, `${peerOf(req)} on ${req.url}`);
    });

  const attachSocket = (ws: WebSocket, channel: string, label: string) => {
    ws.on('error', (err) => log.debug(`notification client ${label}: ${err.message}`));
    const detach = hub.attach(channel, {
      send: (text, flushed) => ws.send(text, flushed),
      close: (why) => {
        if (why === 'overflow') return ws.terminate();
        ws.close(1001, 'the daemon is shutting down');
        setTimeout(() => ws.terminate(), 1000).unref();
      },
    }, { label, idleMs: idleMsOf(channel) });
    log.debug(`notification client ${label} connected (websocket)`);
    ws.once('close', () => {
      detach();
      log.debug(`notification client ${label} disconnected`);
    });
  };

  const attachResponse = (res: Response, channel: string, label: string) => {
    const detach = hub.attach(channel, {
      send: (text, flushed) => void res.write(`${text}\n`, flushed),
      close: () => res.destroy(),
    }, { label, idleMs: idleMsOf(channel) });
    log.debug(`notification client ${label} connected (long-poll)`);
    res.once('close', () => {
      detach();
      log.debug(`notification client ${label} disconnected`);
    });
  };

  if (projects) {
    const projectStream: ChannelOf = (params) => projectChannel(projects.get(params.project_id).id);
    longPoll(CONTROLLER_NOTIFICATIONS_ROUTE, () => CONTROLLER_CHANNEL);
    websocket(CONTROLLER_NOTIFICATIONS_WS_ROUTE, () => CONTROLLER_CHANNEL);
    longPoll(PROJECT_NOTIFICATIONS_ROUTE, projectStream);
    websocket(PROJECT_NOTIFICATIONS_WS_ROUTE, projectStream);
  }
  if (deps.compute) websocket(COMPUTE_NOTIFICATIONS_WS_ROUTE, () => COMPUTE_CHANNEL);
}

/** The client's address:port, for logs. */
export function peerOf(req: IncomingMessage): string {
  const { remoteAddress, remotePort } = req.socket;
  return remoteAddress?.includes(':') ? `[${remoteAddress}]:${remotePort}` : `${remoteAddress}:${remotePort}`;
}
