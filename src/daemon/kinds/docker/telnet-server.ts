import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { guardConsoleInput } from '../../compute/console-guard.js';
import { closeConsole, listenConsole } from '../../compute/console-relay.js';
import type { Logger } from '../../logger.js';

const IAC = 0xff;
const SB = 0xfa;
const SE = 0xf0;
const WILL = 0xfb;
const DONT = 0xfe;
const ECHO = 1;
const SUPPRESS_GO_AHEAD = 3;

/** The terminal is the container's TTY, which echoes: the client goes character mode and echoes nothing. */
const GREETING = Buffer.from([IAC, WILL, ECHO, IAC, WILL, SUPPRESS_GO_AHEAD]);

/** What a telnet client typed, its protocol commands removed (IAC IAC is a literal 0xff; a CR's NUL dropped). */
export class TelnetInput {
  private state: 'data' | 'iac' | 'option' | 'sub' | 'sub-iac' | 'cr' = 'data';

  feed(chunk: Buffer): Buffer {
    const out: number[] = [];
    for (const b of chunk) {
      switch (this.state) {
        case 'data':
          if (b === IAC) this.state = 'iac';
          else {
            out.push(b);
            if (b === 0x0d) this.state = 'cr';
          }
          break;
        case 'cr':
          this.state = 'data';
          if (b === 0 || b === 0x0a) break; // CR NUL and CR LF are one Enter
          if (b === IAC) this.state = 'iac';
          else out.push(b);
          break;
        case 'iac':
          if (b === IAC) {
            out.push(IAC);
            this.state = 'data';
          } else if (b === SB) this.state = 'sub';
          else if (b >= WILL && b <= DONT) this.state = 'option';
          else this.state = 'data';
          break;
        case 'option':
          this.state = 'data';
          break;
        case 'sub':
          if (b === IAC) this.state = 'sub-iac';
          break;
        case 'sub-iac':
          this.state = b === SE ? 'data' : 'sub';
          break;
      }
    }
    return Buffer.from(out);
  }
}

/** Output for a telnet client: a literal 0xff byte doubled. */
function escapeIac(chunk: Buffer): Buffer {
  if (!chunk.includes(IAC)) return chunk;
  const out: number[] = [];
  for (const b of chunk) {
    out.push(b);
    if (b === IAC) out.push(IAC);
  }
  return Buffer.from(out);
}

/**
 * A telnet server on one port that joins its clients to a terminal stream: what the terminal writes
 * goes to every client, what any client types goes to the terminal (GNS3's docker console is shared
 * the same way). `open` gives the terminal: once for the server (shared), or per client.
 */
export class TelnetServer {
  private server?: Server;
  private readonly clients = new Set<Socket>();
  private shared?: Duplex;

  /** `what` names the console in the console guard's warning, e.g. `console of docker node R1 (port 5000)`. */
  constructor(private readonly open: () => Promise<Duplex>, private readonly perClient: boolean,
    private readonly what: string, private readonly log: Pick<Logger, 'warn'>) {}

  async listen(host: string, port: number): Promise<void> {
    if (!this.perClient) this.shared = this.attach(await this.open(), () => this.clients);
    this.server = await listenConsole(host, port, (socket) => void this.accept(socket));
  }

  private attach(terminal: Duplex, readers: () => Iterable<Socket>): Duplex {
    terminal.on('data', (chunk: Buffer) => {
      const out = escapeIac(chunk);
      for (const c of readers()) c.write(out);
    });
    terminal.on('error', () => undefined);
    return terminal;
  }

  private async accept(socket: Socket): Promise<void> {
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    this.clients.add(socket);
    // The guard holds what the client sends (listened to at once, so nothing is missed while a per-client terminal opens).
    const input = new TelnetInput();
    let terminal: Duplex | undefined;
    const early: Buffer[] = [];
    guardConsoleInput(socket, this.what, this.log, (chunk) => {
      const typed = input.feed(chunk);
      if (!typed.length) return;
      if (terminal) terminal.write(typed);
      else early.push(typed);
    });
    socket.once('close', () => {
      this.clients.delete(socket);
      if (this.perClient) terminal?.destroy();
    });
    socket.write(GREETING);
    if (this.perClient) {
      try {
        const opened = this.attach(await this.open(), () => [socket]);
        if (socket.destroyed) return void opened.destroy();
        terminal = opened;
      } catch (err) {
        socket.end(`\r\n${(err as Error).message}\r\n`);
        this.clients.delete(socket);
        return;
      }
      terminal.once('end', () => socket.end());
      terminal.once('close', () => socket.end());
    } else terminal = this.shared;
    for (const typed of early.splice(0)) terminal?.write(typed);
  }

  /** Stops listening and disconnects every client. */
  async close(): Promise<void> {
    this.shared?.destroy();
    this.shared = undefined;
    const server = this.server;
    this.server = undefined;
    await closeConsole(server, this.clients);
  }
}
