import { createServer, connect, type Server, type Socket } from 'node:net';

/** A TCP relay in front of a real server that keeps every byte clients sent through it, to see what reached the server. */
export interface WireLog {
  port: number;
  /** Everything sent to the server so far, as latin1 text. */
  text(): string;
  /** The request targets (method and path) sent to the server so far. */
  requests(): string[];
  close(): Promise<void>;
}

/** Starts a relay on a free loopback port to `127.0.0.1:targetPort`. */
export async function startWireLog(targetPort: number): Promise<WireLog> {
  let sent = '';
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (chunk: Buffer) => (sent += chunk.toString('latin1')));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    text: () => sent,
    requests: () => [...sent.matchAll(/(?:^|\r\n)([A-Z]+ \S+) HTTP\/1\.1\r\n/g)].map((m) => m[1]),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
