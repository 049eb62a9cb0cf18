import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';

/**
 * The cross-protocol guard of every TCP console (Redis's answer to the same attack): a web page can
 * make a browser send `POST / HTTP/1.1`, its headers and a body of its choosing to any loopback port,
 * and a console would type the body into the node. A browser's bytes always start with a request
 * line; a telnet client's with telnet negotiation (0xff), a keystroke or a line of input. So a
 * client's input reaches the node only once its first line cannot be an HTTP request line or a
 * header line that browsers send.
 */
export type ConsoleVerdict = 'console' | 'http' | 'undecided';

/** Input held while undecided at most; a first line still shaped like a request line past it is HTTP. */
export const MAX_INSPECTED_BYTES = 8192;

/** The header names a browser sends unasked, lower case (a connection never starts with one but a guard looks anyway). */
const BROWSER_HEADERS = [
  'host', 'connection', 'content-length', 'content-type', 'user-agent', 'accept', 'accept-encoding', 'accept-language',
  'origin', 'referer', 'cookie', 'cache-control', 'pragma', 'upgrade', 'upgrade-insecure-requests', 'transfer-encoding',
  'priority', 'dnt', 'sec-fetch-site', 'sec-fetch-mode', 'sec-fetch-dest', 'sec-fetch-user', 'sec-ch-ua', 'sec-ch-ua-mobile',
  'sec-ch-ua-platform', 'sec-websocket-key', 'sec-websocket-version', 'authorization', 'te',
];

/** A method is an HTTP token; browsers send the standard ones upper case and any other only after a CORS preflight (OPTIONS). */
const METHOD = '[A-Z][A-Z0-9_-]*';
const REQUEST_LINE = new RegExp(`^${METHOD} [^ \\t\\r\\n]+ HTTP/`);
/** HTTP/0.9's request line has no version: a complete first line `GET /path` is one too. */
const BARE_REQUEST_LINE = /^(GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH|CONNECT|TRACE) [^ \t\r\n]+$/;
const REQUEST_LINE_PREFIX = new RegExp(`^${METHOD}( ([^ \\t\\r\\n]+( (H(T(T(P(/.*)?)?)?)?)?)?)?)?$`);
const HEADER_LINE = new RegExp(`^(${BROWSER_HEADERS.join('|')})[ \\t]*:`, 'i');

/** What the first bytes of a console connection are: HTTP, console input, or too few to tell. */
export function classifyConsoleStart(start: Buffer): ConsoleVerdict {
  if (start.length === 0) return 'undecided';
  const end = start.indexOf(0x0a);
  // latin1 keeps one character per byte: a 0xff (telnet IAC) or a UTF-8 keystroke never looks like a token.
  const raw = start.subarray(0, end >= 0 ? end : start.length).toString('latin1');
  if (REQUEST_LINE.test(raw) || HEADER_LINE.test(raw)) return 'http';
  if (end >= 0) return BARE_REQUEST_LINE.test(raw.replace(/\r$/, '')) ? 'http' : 'console';
  // An Enter (CR NUL, CR LF) or any byte a request line cannot hold decides at once.
  if (!REQUEST_LINE_PREFIX.test(raw) && !couldBeHeader(raw)) return 'console';
  return start.length >= MAX_INSPECTED_BYTES ? 'http' : 'undecided';
}

function couldBeHeader(partial: string): boolean {
  const lower = partial.toLowerCase();
  const name = lower.replace(/[ \t]+$/, '');
  return BROWSER_HEADERS.some((header) => header.startsWith(lower) || header === name);
}

/**
 * Guards one console client: its input goes to `forward`, in order, once its first bytes are known
 * not to be HTTP; an HTTP client is logged (one warning naming the peer and `what`) and disconnected,
 * and not one of its bytes is forwarded.
 */
export function guardConsoleInput(socket: Socket, what: string, log: Pick<Logger, 'warn'>, forward: (chunk: Buffer) => void): void {
  let state: 'held' | 'passed' | 'dropped' = 'held';
  let held = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    if (state === 'passed') return void forward(chunk);
    if (state === 'dropped') return;
    held = Buffer.concat([held, chunk]);
    const verdict = classifyConsoleStart(held);
    if (verdict === 'undecided') return;
    if (verdict === 'console') {
      state = 'passed';
      return void forward(held);
    }
    state = 'dropped';
    log.warn(`${what}: dropped a connection from ${peerOf(socket)} whose first bytes are an HTTP request (a web page reaching the console?)`);
    socket.destroy();
  });
}

function peerOf(socket: Socket): string {
  const host = socket.remoteAddress ?? 'unknown peer';
  return host.includes(':') ? `[${host}]:${socket.remotePort}` : `${host}:${socket.remotePort}`;
}
