import type { Router } from 'express';
import type { Duplex } from 'node:stream';
import type { LocalCompute } from '../../compute/local-compute.js';
import type { Labs } from '../../controller/lab.js';
import type { ControllerNode } from '../../controller/node.js';
import type { ProjectManager } from '../../controller/projects.js';
import type { Logger } from '../../logger.js';
import { peerOf } from '../notifications/routes.js';
import { RouteWebSockets } from '../notifications/upgrade.js';
import { route } from '../route.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';
import type { StreamSlots } from '../streams.js';
import { bridgeConsole } from './bridge.js';
import type { OpenConsoles } from './open-consoles.js';

export const NODE_CONSOLE_WS_ROUTE = '/v2/projects/{project_id}/nodes/{node_id}/console/ws';
export const CONSOLE_RESET_ALL_ROUTE = '/v2/projects/{project_id}/nodes/console/reset';
export const CONSOLE_RESET_ROUTE = '/v2/projects/{project_id}/nodes/{node_id}/console/reset';

/** The compute's console reset of one node type: closes the node's console websockets on that compute. */
function computeConsoleResetRoute(nodeType: string): string {
  return `/v2/compute/projects/{project_id}/${nodeType}/nodes/{node_id}/console/reset`;
}

/** The compute's console websocket of one node type (GNS3 mounts it for each type with a console). */
export function computeConsoleRoute(nodeType: string): string {
  return `/v2/compute/projects/{project_id}/${nodeType}/nodes/{node_id}/console/ws`;
}

export interface ConsoleRouteDeps {
  log: Logger;
  /** A console websocket holds a stream slot while it is open. */
  streams: StreamSlots;
  /** Where open console websockets are kept, for shutdown and console resets. */
  consoles: OpenConsoles;
  /** Present on a controller: the project route, relayed to the node's compute. */
  controller?: { projects: ProjectManager; labs: Labs };
  /** Present on a compute: one route per node type, bridged to the node's telnet console. */
  compute?: LocalCompute;
}

/**
 * GNS3's console websockets: the console is opened before the upgrade, so that a node that is stopped
 * or has no telnet console gets an HTTP error (409) instead of a socket that closes at once.
 */
export function consoleRoutes(router: Router, deps: ConsoleRouteDeps): void {
  const { log, streams, consoles, controller, compute } = deps;
  const sockets = new RouteWebSockets(64 * 1024);

  const websocket = (template: string, open: (params: Record<string, string>) => Promise<Duplex>) =>
    route(router, { method: 'get', template, raw: true }, async ({ params, req, res }) => {
      sockets.requireUpgrade(req, template);
      streams.hold(req.socket, 'console websocket');
      const nodeConsole = await open(params);
      try {
        sockets.accept(req, res, template, (ws) => {
          consoles.add(ws, { projectId: params.project_id, nodeId: params.node_id });
          bridgeConsole(ws, nodeConsole, log, `${peerOf(req)} on ${req.url}`);
        });
      } catch (err) {
        nodeConsole.destroy();
        throw err;
      }
    });

  if (compute) {
    compute.onConsoleReset((projectId, nodeId) => consoles.reset(projectId, nodeId));
    for (const def of compute.nodeTypes.all()) {
      websocket(computeConsoleRoute(def.type), (p) => compute.openConsole(p.project_id, def.type, p.node_id));
      route(router, { method: 'post', template: computeConsoleResetRoute(def.type), body: EMPTY_SCHEMA, status: 204 }, ({ params }) =>
        compute.resetConsole(params.project_id, def.type, params.node_id));
    }
  }
  if (controller) {
    websocket(NODE_CONSOLE_WS_ROUTE, (p) => {
      const lab = controller.labs.of(controller.projects.getOpened(p.project_id));
      const node = lab.node(p.node_id);
      return node.compute.openConsole(lab.project.id, node.nodeType, node.id);
    });
    // GNS3 resets a console by dropping its connections; the next client connects afresh. The
    // controller drops its own (relays included) and, as GNS3's does for a node with a telnet console,
    // asks a remote compute to drop the ones it holds (this daemon's own compute shares `consoles`).
    const resetOnCompute = (projectId: string, node: ControllerNode) =>
      node.compute === compute || node.console === null || node.toJSON().console_type !== 'telnet'
        ? Promise.resolve()
        : node.compute.resetConsole(projectId, node.nodeType, node.id);
    route(router, { method: 'post', template: CONSOLE_RESET_ALL_ROUTE, body: EMPTY_SCHEMA, status: 204 }, async ({ params }) => {
      const lab = controller.labs.of(controller.projects.getOpened(params.project_id));
      consoles.reset(lab.project.id);
      await Promise.all([...lab.nodes.values()].map((n) => resetOnCompute(lab.project.id, n)));
    });
    route(router, { method: 'post', template: CONSOLE_RESET_ROUTE, body: EMPTY_SCHEMA, status: 204 }, async ({ params }) => {
      const lab = controller.labs.of(controller.projects.getOpened(params.project_id));
      const node = lab.node(params.node_id);
      consoles.reset(lab.project.id, node.id);
      await resetOnCompute(lab.project.id, node);
    });
  }
}
