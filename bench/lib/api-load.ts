// Concurrent API clients for the soak and API-under-traffic benches: each client, on a keep-alive
// connection of its own, creates two VPCS nodes in a project, links them, reads the project's links,
// then deletes the link and the nodes, again and again. Every call's latency and status is recorded.
import { Agent, request } from 'node:http';

/** One call as a client saw it. */
export interface CallSample {
  ms: number;
  /** HTTP status; 0 when the connection failed. */
  status: number;
}

/** One API call over `agent`; resolves with its status, latency and parsed JSON body (never rejects). */
export function timedCall(agent: Agent, url: string, method: string, body?: unknown): Promise<CallSample & { body?: any; text: string }> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const start = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - start) / 1e6;
    const req = request(url, {
      agent,
      method,
      headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ ms: elapsed(), status: res.statusCode ?? 0, body: parsed, text });
      });
      res.on('error', (err) => resolve({ ms: elapsed(), status: 0, text: err.message }));
    });
    req.on('error', (err) => resolve({ ms: elapsed(), status: 0, text: err.message }));
    req.end(payload);
  });
}

export interface ApiLoadOptions {
  baseUrl: string;
  projectId: string;
  clients: number;
  /** Prefix of the node names, so that two loads in one project never collide. */
  tag?: string;
  /** Extra reads (`GET /v2/projects/{id}/nodes`) per create/link/delete cycle (default 1). */
  readsPerCycle?: number;
}

/**
 * The clients' loop. Calls that answer with an unexpected status are counted (with the first few
 * answers kept for the report); a 5xx is the figure the soak's target is about.
 */
export class ApiLoad {
  private running = false;
  private paused?: Promise<void>;
  private resumePaused?: () => void;
  private loops: Promise<void>[] = [];
  private window: CallSample[] = [];
  private readonly agents: Agent[] = [];
  /** Every call since start. */
  readonly all: CallSample[] = [];
  /** The first unexpected answers (method, path, status, body). */
  readonly unexpected: string[] = [];
  unexpectedCount = 0;
  cycles = 0;
  private idle = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly opts: ApiLoadOptions) {}

  start(): void {
    this.running = true;
    for (let i = 0; i < this.opts.clients; i++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      this.agents.push(agent);
      this.loops.push(this.loop(i, agent));
    }
  }

  /** Stops every client after its current cycle (each cycle removes what it created) and waits until all are idle. */
  async pause(): Promise<void> {
    if (this.paused) return;
    this.paused = new Promise((r) => (this.resumePaused = r));
    await new Promise<void>((r) => {
      this.idleWaiters.push(r);
      this.checkIdle();
    });
  }

  resume(): void {
    const resume = this.resumePaused;
    this.paused = undefined;
    this.resumePaused = undefined;
    resume?.();
  }

  /** Stops the clients after their current cycle and closes their connections. */
  async stop(): Promise<void> {
    this.running = false;
    this.resume();
    await Promise.all(this.loops);
    for (const agent of this.agents) agent.destroy();
  }

  /** The calls since the last `takeWindow()`. */
  takeWindow(): CallSample[] {
    const w = this.window;
    this.window = [];
    return w;
  }

  private checkIdle(): void {
    if (this.paused && this.idle === this.loops.length) for (const w of this.idleWaiters.splice(0)) w();
  }

  private async loop(client: number, agent: Agent): Promise<void> {
    const base = `${this.opts.baseUrl}/v2/projects/${this.opts.projectId}`;
    const tag = this.opts.tag ?? 'api';
    const call = async (method: string, path: string, body: unknown, expected: number) => {
      const r = await timedCall(agent, `${base}${path}`, method, body);
      const sample = { ms: r.ms, status: r.status };
      this.all.push(sample);
      this.window.push(sample);
      if (r.status !== expected) {
        this.unexpectedCount++;
        if (this.unexpected.length < 20) this.unexpected.push(`${method} ${path} → ${r.status} ${r.text.slice(0, 200)}`);
      }
      return r;
    };
    for (let n = 0; this.running; n++) {
      if (this.paused) {
        this.idle++;
        this.checkIdle();
        await this.paused;
        this.idle--;
        if (!this.running) break;
      }
      const nodes: string[] = [];
      for (const side of ['a', 'b']) {
        const r = await call('POST', '/nodes', { name: `${tag}${client}${side}${n}`, node_type: 'vpcs' }, 201);
        if (r.body?.node_id) nodes.push(r.body.node_id);
      }
      let linkId: string | undefined;
      if (nodes.length === 2) {
        const r = await call('POST', '/links', { nodes: nodes.map((node_id) => ({ node_id, adapter_number: 0, port_number: 0 })) }, 201);
        linkId = r.body?.link_id;
      }
      for (let i = 0; i < (this.opts.readsPerCycle ?? 1); i++) await call('GET', '/nodes', undefined, 200);
      if (linkId) await call('DELETE', `/links/${linkId}`, undefined, 204);
      for (const node of nodes) await call('DELETE', `/nodes/${node}`, undefined, 204);
      this.cycles++;
    }
  }
}
