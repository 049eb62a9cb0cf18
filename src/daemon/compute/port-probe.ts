import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/**
 * VPCS 0.5b2 binds its console and its UDP ports on INADDR_ANY, so a port it will use counts as free
 * only when it can be bound on every interface, not just on 127.0.0.1.
 */
export const ANY_ADDRESS = '0.0.0.0';

/** True when a TCP listener could bind `port` on `host` right now. */
export function isTcpPortFree(port: number, host = ANY_ADDRESS): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** True when a UDP socket could bind `port` on `host` right now. */
export function isUdpPortFree(port: number, host = ANY_ADDRESS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind({ port, address: host, exclusive: true }, () => socket.close(() => resolve(true)));
  });
}
