import { certificateProblem } from '../util/tls-trust.js';
import { OperationError, UnreachableError, UntrustedServerError } from './errors.js';

/** Network error codes meaning the server could not be reached (or stopped answering). */
export const UNREACHABLE_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'no answer in time',
};

/** A server whose TLS certificate failed verification: what is wrong, and how to trust it on purpose. */
export function untrustedServer(serverUrl: string, problem: string): UntrustedServerError {
  const how = /pinned/.test(problem)
    ? 'if its certificate was changed on purpose, check the new fingerprint it logged at start and pin that one'
    : 'give its CA with --ca-file (EMUCTL_CA_FILE, profile add --ca-file) or pin its certificate with --fingerprint';
  return new UntrustedServerError(`cannot trust ${serverUrl}: ${problem}; ${how}`);
}

/** What the error handling needs from a got error (checked structurally: got stays lazily loaded). */
interface GotLikeError extends Error {
  code?: string;
  response?: { statusCode: number; statusMessage?: string; body?: unknown };
  options?: { method?: string; url?: URL | string };
  timings?: unknown;
}

/** The server's `message` from a GNS3 error body `{message, status}`, if there is one. */
function serverMessage(body: unknown): string | undefined {
  let parsed = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      parsed = JSON.parse(body.toString());
    } catch {
      return undefined;
    }
  }
  if (parsed && typeof parsed === 'object' && typeof (parsed as { message?: unknown }).message === 'string') {
    return (parsed as { message: string }).message;
  }
  return undefined;
}

/** Maps a got error to a typed CLI error: HTTP errors → OperationError, network failures → UnreachableError. */
export function toCliError(err: unknown, serverUrl: string, timeoutMs: number, unreachableHint?: string): Error {
  const e = err as GotLikeError;
  if (!(err instanceof Error)) return new OperationError(String(err));
  if (e.response && e.name === 'HTTPError') {
    const { statusCode, statusMessage } = e.response;
    const request = `${e.options?.method ?? ''} ${e.options?.url ? new URL(String(e.options.url)).pathname : ''}`.trim();
    const message = serverMessage(e.response.body) ?? `${request ? `${request}: ` : ''}HTTP ${statusCode} ${statusMessage ?? ''}`.trim();
    const auth = statusCode === 401 ? ' (check the profile\'s user and password)' : '';
    return new OperationError(`${message}${auth}`, statusCode);
  }
  const problem = certificateProblem(e);
  if (problem) return untrustedServer(serverUrl, problem);
  if (e.name === 'TimeoutError') {
    return new UnreachableError(`cannot reach ${serverUrl}: no answer within ${timeoutMs / 1000} s`, unreachableHint);
  }
  if (e.code && UNREACHABLE_CODES[e.code]) {
    return new UnreachableError(`cannot reach ${serverUrl}: ${UNREACHABLE_CODES[e.code]}`, unreachableHint);
  }
  if (e.name === 'ParseError') {
    return new OperationError(`${serverUrl} answered with something that is not JSON; is it a GNS3 v2 server?`);
  }
  return new OperationError(`request to ${serverUrl} failed: ${e.message}`);
}
