import type { ApiClient } from '../client/api.js';
import { OperationError } from '../client/errors.js';
import { nodeAction, type Node } from '../client/nodes.js';
import { perNodeTimeoutMs, stopConcurrency } from '../client/pacing.js';
import { spinWithProgress, type Output } from '../render/output.js';
import { eachLimited } from '../util/each-limited.js';
import { nodeProgress } from './progress.js';

/**
 * Stops the nodes a few at a time (4 per core), each request
 * given a wait that grows with the load; progress goes to stderr (a spinner on a terminal, a line
 * every tenth otherwise). Every node is tried; those that failed are named in one error.
 */
export async function stopPaced(api: ApiClient, projectId: string, nodes: readonly Node[], out: Output, concurrency = stopConcurrency()): Promise<void> {
  if (!nodes.length) return;
  let done = 0;
  const results = await spinWithProgress(out, `Stopping ${nodes.length} nodes`, (update) => {
    const progress = nodeProgress(out, update, 'Stopping', 'stopped');
    return eachLimited(nodes, concurrency, async (node) => {
      await nodeAction(api, projectId, node.node_id, 'stop', perNodeTimeoutMs());
      progress(++done, nodes.length);
    });
  });
  const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [`${nodes[i]!.name}: ${(r.reason as Error).message}`] : []));
  if (failed.length) throw new OperationError(`${failed.length} of ${nodes.length} nodes did not stop: ${failed.slice(0, 10).join('; ')}${failed.length > 10 ? '; …' : ''}`);
}
