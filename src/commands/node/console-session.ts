import type { Duplex } from 'node:stream';
import { TelnetFilter } from '../../client/telnet-filter.js';

export { TelnetFilter };

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

/** How a session ended: the user pressed Ctrl-], or the console closed the connection. */
export type SessionEnd = 'escape' | 'closed';

/**
 * Connects the terminal to an open console connection (a TCP socket or the console websocket): raw
 * mode, keystrokes to the console, its output to the screen, until Ctrl-], the end of the input or
 * the connection closes. The terminal is restored in every case.
 */
export async function runConsoleSession(socket: Duplex, terminal: Terminal, onConnected: () => void): Promise<SessionEnd> {
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
    socket.once('end', () => finish('closed'));
    socket.once('close', () => finish('closed'));
    socket.on('error', () => finish('closed'));
    terminal.input.setRawMode?.(true);
    input.on('data', onKeys);
    input.once('end', onInputEnd);
    input.resume();
  });
}
