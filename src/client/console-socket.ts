import { connect, type Socket } from 'node:net';
import { UnreachableError } from './errors.js';

/** Opens a TCP connection to a node console; UnreachableError naming `what` when nothing answers in time. */
export async function connectConsoleSocket(host: string, port: number, timeoutMs: number, what: string): Promise<Socket> {
  const where = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const socket = connect({ host, port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new UnreachableError(`Cannot connect to ${what} ${where}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => { clearTimeout(timer); resolve(); });
    socket.once('error', (err) => { clearTimeout(timer); reject(new UnreachableError(`Cannot connect to ${what} ${where}: ${err.message}`)); });
  });
  return socket;
}
