import WebSocket from 'ws';

/** One message of a notification stream, as received. */
export interface StreamMessage {
  action: string;
  event: any;
  project_id?: string;
  /** When it arrived (ms, performance.now()). */
  at: number;
}

/**
 * Records what a notification stream (websocket or long-poll) sends, and waits for
 * messages in order: `next(match)` skips what does not match and consumes the first that does.
 */
export class StreamRecorder {
  readonly messages: StreamMessage[] = [];
  private cursor = 0;
  private waiters: (() => void)[] = [];
  ended = false;
  closeCode?: number;

  constructor(private readonly closeTransport: () => void) {}

  /** Adds a message (called by the transport). */
  push(text: string): void {
    this.messages.push({ ...JSON.parse(text), at: performance.now() });
    this.wake();
  }

  /** Marks the end of the stream (called by the transport). */
  end(code?: number): void {
    this.ended = true;
    this.closeCode = code;
    this.wake();
  }

  /** The next message matching `match` after the previous one consumed (an action name or a predicate). */
  async next(match: string | ((m: StreamMessage) => boolean), timeoutMs = 15_000): Promise<StreamMessage> {
    const test = typeof match === 'string' ? (m: StreamMessage) => m.action === match : match;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.messages.length) {
        const m = this.messages[this.cursor++];
        if (test(m)) return m;
      }
      if (this.ended) throw new Error(`the stream ended before a matching message; got: ${this.actions().join(', ')}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms; got: ${this.actions().join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until the stream has ended (the server closed it). */
  async closed(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (Date.now() >= deadline) throw new Error(`the stream did not end within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The actions received so far. */
  actions(): string[] {
    return this.messages.map((m) => m.action);
  }

  close(): void {
    this.closeTransport();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Basic-auth header for a user and password. */
export function basicAuthHeader(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** Opens a notification websocket (`path` under the daemon's URL); resolves once it is open. */
export async function openWebSocket(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<StreamRecorder & { socket: WebSocket }> {
  const socket = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, { headers });
  const recorder = Object.assign(new StreamRecorder(() => socket.terminate()), { socket });
  socket.on('message', (data) => recorder.push(data.toString()));
  socket.on('close', (code) => recorder.end(code));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => reject(new Error(`websocket refused: HTTP ${res.statusCode}`)));
    socket.once('error', reject);
  });
  return recorder;
}

/** What a websocket handshake that was refused answered. */
export async function refusedWebSocket(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  const socket = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, { headers });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the websocket was accepted'));
    });
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        socket.terminate();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    socket.once('error', () => undefined);
  });
}

/** Opens a long-poll notification route: one JSON message per line of a chunked answer. */
export async function openLongPoll(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<StreamRecorder & { response: Response }> {
  const abort = new AbortController();
  const response = await fetch(baseUrl + path, { headers, signal: abort.signal });
  const recorder = Object.assign(new StreamRecorder(() => abort.abort()), { response });
  void (async () => {
    let buffered = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line) recorder.push(line);
        }
      }
    } catch {
      // aborted
    }
    recorder.end();
  })();
  return recorder;
}

/** A ping as every stream sends it. */
export function isPing(m: StreamMessage): boolean {
  return m.action === 'ping' && typeof m.event?.cpu_usage_percent === 'number' && typeof m.event?.memory_usage_percent === 'number';
}
