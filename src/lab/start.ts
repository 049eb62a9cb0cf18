import type { ApiClient, StreamServer } from '../client/api.js';
import { OperationError } from '../client/errors.js';
import { listNodes, nodeAction, type Node } from '../client/nodes.js';
import { loadFactor, perNodeTimeoutMs, startConcurrency } from '../client/pacing.js';
import { notificationsPath, openNotifications, type NotificationConnection } from '../client/notifications.js';

/** How long `lab up` waits for nodes to report `started` on an idle machine (plus 1 s a node, times the load factor). */
export const START_TIMEOUT_MS = 120_000;
const POLL_MS = 500;
/**
 * Starts the nodes, `concurrency` requests at a time,
 * and resolves once each reports `started`. The project's notification stream
 * is opened first, so no `node.updated` is missed; a server without one is polled every 0.5 s.
 * Either way the wait is bounded by `timeoutMs`, and the nodes still not started are named.
 */
export async function startAndWait(api: ApiClient, server: StreamServer | undefined, projectId: string, nodes: readonly Node[],
  timeoutMs = (START_TIMEOUT_MS + 1_000 * nodes.length) * loadFactor(), concurrency = startConcurrency(),
  progress: (started: number) => void = () => undefined): Promise<void> {
  const stream = server ? await openNotifications(server, notificationsPath(projectId)).catch(() => undefined) : undefined;
  try {
    const status = new StartedCount(nodes, progress);
    const queue = [...nodes];
    const worker = async () => {
      for (let node = queue.shift(); node; node = queue.shift()) {
        const answer = await nodeAction(api, projectId, node.node_id, 'start', perNodeTimeoutMs());
        if (answer?.status) status.set(node.node_id, answer.status);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, nodes.length) }, worker));
    const waiting = () => nodes.filter((n) => status.get(n.node_id) !== 'started');
    if (!waiting().length) return;
    const deadline = Date.now() + timeoutMs;
    if (stream) await followStream(stream, status, () => waiting().length === 0, deadline);
    else await poll(api, projectId, status, () => waiting().length === 0, deadline);
    if (waiting().length) {
      throw new OperationError(`not started within ${Math.round(timeoutMs / 1000)} s: ${waiting().map((n) => `${n.name} (${status.get(n.node_id)})`).join(', ')}`);
    }
  } finally {
    stream?.close();
  }
}

/** Each node's status, and how many are started: told to `progress` each time that number changes. */
class StartedCount {
  private readonly status: Map<string, string>;
  private started: number;

  constructor(nodes: readonly Node[], private readonly progress: (started: number) => void) {
    this.status = new Map(nodes.map((n) => [n.node_id, n.status]));
    this.started = nodes.filter((n) => n.status === 'started').length;
  }

  has(nodeId: string): boolean {
    return this.status.has(nodeId);
  }

  get(nodeId: string): string | undefined {
    return this.status.get(nodeId);
  }

  set(nodeId: string, status: string): void {
    const before = this.status.get(nodeId);
    this.status.set(nodeId, status);
    const change = Number(status === 'started') - Number(before === 'started');
    if (!change) return;
    this.started += change;
    this.progress(this.started);
  }
}

async function followStream(stream: NotificationConnection, status: StartedCount, done: () => boolean, deadline: number): Promise<void> {
  const timer = setTimeout(() => stream.close(), Math.max(0, deadline - Date.now()));
  try {
    for await (const message of stream.messages()) {
      if (message.action === 'node.updated' && status.has(message.event.node_id)) status.set(message.event.node_id, message.event.status);
      if (done()) return;
    }
  } finally {
    clearTimeout(timer);
  }
}

async function poll(api: ApiClient, projectId: string, status: StartedCount, done: () => boolean, deadline: number): Promise<void> {
  while (!done() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    for (const node of await listNodes(api, projectId)) if (status.has(node.node_id)) status.set(node.node_id, node.status);
  }
}
