import type { Duplex } from 'node:stream';
import { apiPath, type StreamServer } from './api.js';
import { openServerWebSocket } from './server-websocket.js';

/** GNS3's console websocket of a node, after the API prefix (GNS3 2.2, 3.x and emuctl alike). */
export function consoleWebSocketPath(projectId: string, nodeId: string): string {
  return apiPath('projects', projectId, 'nodes', nodeId, 'console', 'ws');
}

/**
 * Opens a node's console through the server's console websocket (the API's own port, with the
 * profile's credentials): a byte stream like a TCP connection to the console.
 */
export async function openConsoleWebSocket(server: StreamServer, projectId: string, nodeId: string): Promise<Duplex> {
  const socket = await openServerWebSocket(server, consoleWebSocketPath(projectId, nodeId), 'the console websocket');
  const { createWebSocketStream } = await import('ws');
  return createWebSocketStream(socket);
}
