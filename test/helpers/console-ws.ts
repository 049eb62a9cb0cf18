import { WebSocket } from 'ws';

/** A console websocket client that keeps what the console sent, and the kinds of frames it came in. */
export interface ConsoleClient {
  ws: WebSocket;
  /** Everything received so far, as text. */
  text(): string;
  /** How many text frames came (GNS3 sends binary frames only). */
  textFrames(): number;
  /** Resolves once the received text (after `from`) matches `pattern`; rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, from?: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens `url` (ws://…/console/ws) and resolves once the handshake succeeded. */
export async function openConsoleClient(url: string, headers: Record<string, string> = {}): Promise<ConsoleClient> {
  const ws = new WebSocket(url, { headers });
  let received = '';
  let textFrames = 0;
  const waiters = new Set<() => void>();
  ws.on('message', (data, isBinary) => {
    if (!isBinary) textFrames++;
    received += Buffer.from(data as Buffer).toString('latin1');
    for (const check of waiters) check();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return {
    ws,
    text: () => received,
    textFrames: () => textFrames,
    waitFor: (pattern, from = 0, timeoutMs = 20_000) => new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(received.slice(from))) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${pattern} from the console within ${timeoutMs} ms; it sent: ${JSON.stringify(received.slice(from))}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    }),
    close: () => new Promise<void>((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) return resolve();
      ws.once('close', () => resolve());
      ws.close();
    }),
  };
}

/** What a websocket handshake that was refused got: the HTTP status and the JSON body. */
export async function refusedHandshake(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; route?: string }> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.terminate();
      reject(new Error(`${url}: the handshake succeeded`));
    });
    ws.once('unexpected-response', (req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.once('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, route: res.headers['x-route'] as string | undefined });
      });
    });
    ws.once('error', () => undefined);
  });
}
