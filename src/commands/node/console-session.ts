import { connect } from 'node:net';
import { OperationError } from '../../cli/errors.js';

/** The terminal a console session runs on (process.stdin/stdout; fakes in tests). */
export interface Terminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };
  output: NodeJS.WritableStream & { isTTY?: boolean };
}

/** The real terminal. Console bytes bypass the output object: they are the session, not a result. */
export function processTerminal(): Terminal {
  return { input: process.stdin, output: process.stdout };
}

/** Ctrl-] ends the session, as with telnet. */
export const ESCAPE_BYTE = 0x1d;

const IAC = 255;
const SB = 250;
const SE = 240;

/**
 * Removes telnet negotiation (IAC …) from what the console sends: it is protocol, not screen
 * output, and a terminal would show it as garbage. Everything else passes through untouched.
 * Nothing is answered: VPCS drops every read that starts with IAC, so an answer could swallow
 * the user's next keystrokes.
 */
export class TelnetFilter {
  private state: 'data' | 'iac' | 'option' | 'sub' | 'subIac' = 'data';

  /** The chunk without telnet commands (state carries over between chunks). */
  filter(chunk: Buffer): Buffer {
    if (this.state === 'data' && !chunk.includes(IAC)) return chunk;
    const out: number[] = [];
    for (const byte of chunk) {
      switch (this.state) {
        case 'data':
          if (byte === IAC) this.state = 'iac';
          else out.push(byte);
          break;
        case 'iac':
          if (byte === IAC) { out.push(IAC); this.state = 'data'; }
          else if (byte === SB) this.state = 'sub';
          else this.state = byte >= 251 ? 'option' : 'data'; // WILL/WONT/DO/DONT carry one option byte.
          break;
        case 'option':
          this.state = 'data';
          break;
        case 'sub':
          if (byte === IAC) this.state = 'subIac';
          break;
        case 'subIac':
          this.state = byte === SE ? 'data' : 'sub';
          break;
      }
    }
    return Buffer.from(out);
  }
}

/** How a session ended: the user pressed Ctrl-], or the console closed the connection. */
export type SessionEnd = 'escape' | 'closed';

/**
 * Connects the terminal to the console at host:port: raw mode, keystrokes to the socket, console
 * output to the screen, until Ctrl-] or the connection closes. The terminal is restored in every case.
 */
export async function runConsoleSession(host: string, port: number, terminal: Terminal, onConnected: () => void): Promise<SessionEnd> {
  const socket = connect({ host, port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', (err) => reject(new OperationError(`cannot connect to the console at ${host}:${port}: ${err.message}`)));
  });
  const { input, output } = terminal;
  const telnet = new TelnetFilter();
  onConnected();
  return new Promise<SessionEnd>((resolve) => {
    let ended = false;
    const finish = (how: SessionEnd) => {
      if (ended) return;
      ended = true;
      input.removeListener('data', onKeys);
      input.removeListener('end', onInputEnd);
      socket.removeAllListeners('data');
      terminal.input.setRawMode?.(false);
      input.pause();
      socket.destroy();
      resolve(how);
    };
    const onKeys = (chunk: Buffer | string) => {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      const escape = bytes.indexOf(ESCAPE_BYTE);
      if (escape < 0) {
        socket.write(bytes);
        return;
      }
      if (escape > 0) socket.write(bytes.subarray(0, escape));
      finish('escape');
    };
    const onInputEnd = () => finish('escape');
    socket.on('data', (chunk: Buffer) => {
      const visible = telnet.filter(chunk);
      if (visible.length) output.write(visible);
    });
    socket.once('close', () => finish('closed'));
    socket.on('error', () => finish('closed'));
    terminal.input.setRawMode?.(true);
    input.on('data', onKeys);
    input.once('end', onInputEnd);
    input.resume();
  });
}
