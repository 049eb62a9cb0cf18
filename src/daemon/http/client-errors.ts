import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's HTTP parser could not take, as the status and message the client gets. */
function answerOf(code: string | undefined): { status: number; reason: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', message: 'Request headers are too large' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: 'The request did not arrive in time' };
  return { status: 400, reason: 'Bad Request', message: 'Malformed HTTP request' };
}

/**
 * Requests refused by Node's parser before the app sees them (headers over 16 KB, a raw byte the
 * URL may not hold, a request too slow) get the daemon's JSON error body too, then the connection closes.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean } }) => {
    if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) return void socket.destroy();
    answerAndClose(socket, err.code);
  });
}

/**
 * How long a refused connection stays half-closed after its answer, so that a client still
 * sending reads the answer instead of a reset; then it is destroyed, whether or not the client
 * closed its side (one that never does would otherwise hold the connection for good).
 */
const LINGER_MS = 2_000;

/** Answers the error of `code` (a Node parser or timeout code) on a raw HTTP socket as JSON, and closes the connection. */
export function answerAndClose(socket: Duplex, code: string | undefined): void {
  if (!socket.writable) return void socket.destroy();
  const { status, reason, message } = answerOf(code);
  const body = JSON.stringify({ message, status });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(timer));
}
