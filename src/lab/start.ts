import type { ApiClient, StreamServer } from '../client/api.js';
import { OperationError } from '../client/errors.js';
import { listNodes, nodeAction, type Node } from '../client/nodes.js';
import { loadFactor, perNodeTimeoutMs, startConcurrency } from '../client/pacing.js';
import { notificationsPath, openNotifications, type NotificationConnection } from '../client/notifications.js';
import { eachLimited } from '../util/each-limited.js';

/** How long `lab up` waits for nodes to report `started` on an idle machine (plus 1 s a node, times the load factor). */
export const START_TIMEOUT_MS = 120_000;
const POLL_MS = 500;

/** A node's new status, as a start's answer, an event or a poll tells it. */
type StatusChange = (nodeId: string, status: string) => void;

/**
 * Starts the nodes, `concurrency` requests at a time,
 * and resolves once each reports `started`. The project's notification stream
 * is opened first, so no `node.updated` is missed; a server without one is polled every 0.5 s.
 * Either way the wait is bounded by `timeoutMs`, and the nodes still not started are named.
 * `progress` hears how many of the nodes are started each time that number changes.
 */
export async function startAndWait(api: ApiClient, server: StreamServer | undefined, projectId: string, nodes: readonly Node[],
  timeoutMs = (START_TIMEOUT_MS + 1_000 * nodes.length) * loadFactor(), concurrency = startConcurrency(),
  progress: (started: number, total: number) => void = () => undefined): Promise<void> {
  const stream = server ? await openNotifications(server, notificationsPath(projectId)).catch(() => undefined) : undefined;
  try {
    const status = new Map(nodes.map((n) => [n.node_id, n.status]));
    const startedCount = () => [...status.values()].filter((s) => s === 'started').length;
    let started = startedCount();
    const change: StatusChange = (nodeId, value) => {
      if (!status.has(nodeId)) return;
      status.set(nodeId, value);
      if (startedCount() !== started) progress((started = startedCount()), nodes.length);
    };
    const results = await eachLimited(nodes, concurrency, async (node) => {
      const answer = await nodeAction(api, projectId, node.node_id, 'start', perNodeTimeoutMs());
      if (answer?.status) change(node.node_id, answer.status);
    });
    const refused = results.find((r) => r.status === 'rejected');
    if (refused) throw refused.reason;
    const waiting = () => nodes.filter((n) => status.get(n.node_id) !== 'started');
    if (!waiting().length) return;
    const deadline = Date.now() + timeoutMs;
    if (stream) await followStream(stream, change, () => waiting().length === 0, deadline);
    else await poll(api, projectId, change, () => waiting().length === 0, deadline);
    if (waiting().length) {
      throw new OperationError(`not started within ${Math.round(timeoutMs / 1000)} s: ${waiting().map((n) => `${n.name} (${status.get(n.node_id)})`).join(', ')}`);
    }
  } finally {
    stream?.close();
  }
}

async function followStream(stream: NotificationConnection, change: StatusChange, done: () => boolean, deadline: number): Promise<void> {
  const timer = setTimeout(() => stream.close(), Math.max(0, deadline - Date.now()));
  try {
    for await (const message of stream.messages()) {
      if (message.action === 'node.updated') change(message.event.node_id, message.event.status);
      if (done()) return;
    }
  } finally {
    clearTimeout(timer);
  }
}

async function poll(api: ApiClient, projectId: string, change: StatusChange, done: () => boolean, deadline: number): Promise<void> {
  while (!done() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    for (const node of await listNodes(api, projectId)) change(node.node_id, node.status);
  }
}
