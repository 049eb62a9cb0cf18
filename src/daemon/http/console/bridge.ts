import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { Logger } from '../../logger.js';

/** Console output waiting in the websocket beyond this pauses the console, until the client catches up. */
const HIGH_WATER_BYTES = 256 * 1024;

/**
 * Joins a client's websocket to a node's console, as GNS3 does: every frame the client sends (binary,
 * or text as its UTF-8 bytes) goes to the console; what the console sends goes out as binary frames.
 * Whichever side closes first closes the other at once, so the console is free for the next client.
 */
export function bridgeConsole(ws: WebSocket, nodeConsole: Duplex, log: Logger, label: string): void {
  ws.on('message', (data: RawData) => {
    if (!nodeConsole.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer))) ws.pause();
  });
  nodeConsole.on('drain', () => ws.resume());
  nodeConsole.on('data', (chunk: Buffer) => {
    ws.send(chunk, { binary: true }, () => {
      if (nodeConsole.isPaused() && ws.bufferedAmount < HIGH_WATER_BYTES) nodeConsole.resume();
    });
    if (ws.bufferedAmount >= HIGH_WATER_BYTES) nodeConsole.pause();
  });
  nodeConsole.on('error', (err) => log.debug(`console ${label}: ${err.message}`));
  ws.on('error', (err) => log.debug(`console client ${label}: ${err.message}`));
  nodeConsole.once('close', () => {
    ws.close(1000, 'the console closed the connection');
    setTimeout(() => ws.terminate(), 1000).unref();
  });
  ws.once('close', () => {
    nodeConsole.destroy();
    log.debug(`console client ${label} disconnected`);
  });
  log.debug(`console client ${label} connected`);
}
