import { connect, type Socket } from 'node:net';
import { ConflictError } from '../errors.js';
import type { ComputeNode } from './node-types.js';

/** How long the compute waits for a node's own telnet server to accept a connection. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * Connects to a started node's telnet console, as GNS3's `start_websocket_console` does: a node that
 * is not started, has no telnet console or whose console refuses is a 409 (GNS3's NodeError).
 */
export async function connectNodeConsole(node: ComputeNode): Promise<Socket> {
  if (node.status !== 'started') throw new ConflictError(`Node ${node.name} is not started`);
  const telnet = node.telnetConsole?.();
  if (!telnet) throw new ConflictError(`Node ${node.name} console type is not telnet`);
  const socket = connect({ host: telnet.host, port: telnet.port });
  socket.setNoDelay(true);
  return new Promise<Socket>((resolve, reject) => {
    const fail = (why: string) => {
      socket.destroy();
      reject(new ConflictError(`Cannot connect to node ${node.name} telnet server: ${why}`));
    };
    const timer = setTimeout(() => fail(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`), CONNECT_TIMEOUT_MS);
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(err.code ?? err.message);
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}
