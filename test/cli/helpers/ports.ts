import { createServer, type Server } from 'node:net';

/** A TCP port that was free a moment ago (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Occupies a port until close() is called. */
export async function occupyPort(): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
