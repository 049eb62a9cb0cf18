import { createServer, type Server, type Socket } from 'node:net';
import { ConflictError } from '../errors.js';
import type { Logger } from '../logger.js';
import { guardConsoleInput } from './console-guard.js';
import { connectUnix } from './unix-socket.js';

/** Listens on a console TCP port (exclusively: two nodes never share one); a port in use is a 409. */
export async function listenConsole(host: string, port: number, accept: (socket: Socket) => void): Promise<Server> {
  const server = createServer(accept);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new ConflictError(`cannot listen on console port ${port}: ${err.code ?? err.message}`)));
    server.listen({ host, port, exclusive: true }, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  server.on('error', () => undefined);
  return server;
}

/** Stops a console server: no new client, and every client it still has disconnected. */
export async function closeConsole(server: Server | undefined, clients: Set<Socket>): Promise<void> {
  for (const c of clients) c.destroy();
  clients.clear();
  if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * The TCP console of a program that serves its console on a unix socket in its node directory
 * (QEMU's serial, a confined VPCS): emuctl owns the TCP port, so every client passes the console
 * guard before a byte reaches the program. Each client gets its own connection to the socket, made
 * at once so that the program's greeting and output flow while the guard still holds the input.
 * The bytes are relayed unchanged both ways (the program speaks telnet itself).
 */
export class ConsoleRelay {
  private server?: Server;
  private readonly clients = new Set<Socket>();

  /** `what` names the console in the guard's warning, e.g. `console of QEMU VM R1 (port 5000)`. */
  constructor(private readonly socketPath: string, private readonly what: string, private readonly log: Pick<Logger, 'warn'>) {}

  async listen(host: string, port: number): Promise<void> {
    this.server = await listenConsole(host, port, (client) => this.accept(client));
  }

  private accept(client: Socket): void {
    client.setNoDelay(true);
    client.on('error', () => undefined);
    this.clients.add(client);
    let program: Socket | undefined;
    const early: Buffer[] = [];
    guardConsoleInput(client, this.what, this.log, (chunk) => (program ? program.write(chunk) : early.push(chunk)));
    // A client that goes half-closes the program's socket: the program still reads what the client sent
    // before it went, then closes (a full close would be a hang-up, on which QEMU drops what it has not read).
    client.once('close', () => {
      this.clients.delete(client);
      program?.end();
    });
    connectUnix(this.socketPath).then((socket) => {
      if (client.destroyed) return void socket.end();
      program = socket;
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => client.write(chunk));
      socket.once('close', () => client.end());
      for (const chunk of early.splice(0)) socket.write(chunk);
    }, (err: NodeJS.ErrnoException) => client.end(`\r\nThe console is not available: ${err.code ?? err.message}\r\n`));
  }

  /** Stops listening and disconnects every client. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeConsole(server, this.clients);
  }
}
