import type { Duplex } from 'node:stream';
import { createWebSocketStream, WebSocket } from 'ws';
import { BadGatewayError, GatewayTimeoutError, UpstreamError } from '../errors.js';
import { authorizationOf, computeAgent, computeLabel, connectionFailure, endpointUrl, errorMessageOf, type ComputeEndpoint } from './compute-http.js';

/** The largest frame a compute may send through a relayed websocket. */
const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * Opens a websocket route of a compute (with its credentials and TLS trust) as a byte stream: what is written goes
 * out as binary frames, what the compute sends (binary or text) comes out as bytes. A refusal keeps
 * the compute's status and message; an unreachable compute is a 502, a handshake that does not finish
 * within `timeoutMs` a 504. Destroying the stream closes the websocket at once.
 */
export function openComputeWebSocket(c: ComputeEndpoint, path: string, timeoutMs: number): Promise<Duplex> {
  const url = `${endpointUrl(c).replace(/^http/, 'ws')}${path}`;
  const authorization = authorizationOf(c);
  const ws = new WebSocket(url, {
    headers: authorization ? { authorization } : {},
    // The compute's certificate is checked as for every other call to it (its CA or pinned fingerprint).
    agent: computeAgent(c),
    handshakeTimeout: timeoutMs,
    perMessageDeflate: false,
    maxPayload: MAX_FRAME_BYTES,
  });
  return new Promise<Duplex>((resolve, reject) => {
    let refused = false;
    ws.on('unexpected-response', (req, res) => {
      refused = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        req.destroy();
        const status = res.statusCode ?? 502;
        reject(new UpstreamError(`${computeLabel(c)}: ${errorMessageOf({ status, headers: res.headers, body: Buffer.concat(chunks) })}`, status));
      });
      res.once('error', () => req.destroy());
    });
    ws.on('error', (err) => {
      if (refused) return;
      if (/handshake has timed out/i.test(err.message)) reject(new GatewayTimeoutError(`${computeLabel(c)} did not accept the websocket ${path} within ${timeoutMs / 1000} s`));
      else reject(new BadGatewayError(`${computeLabel(c)} is unreachable: ${connectionFailure(err as NodeJS.ErrnoException)}`));
    });
    ws.once('open', () => resolve(createWebSocketStream(ws)));
  });
}
