import { join } from 'node:path';
import { NotFoundError } from '../errors.js';
import type { ComputeNode } from './node-types.js';

/** The compute's own view of a project: its directory and the nodes it runs for it. */
export class ComputeProject {
  readonly nodes = new Map<string, ComputeNode>();
  variables: unknown[] | null = null;

  constructor(readonly id: string, public name: string, readonly path: string) {}

  get capturesDir(): string {
    return join(this.path, 'project-files', 'captures');
  }

  /** A node's working directory, as GNS3 lays them out. */
  nodeDir(nodeType: string, nodeId: string): string {
    return join(this.path, 'project-files', nodeType, nodeId);
  }

  /** The node of that type and id, or NotFoundError. */
  node(nodeType: string, nodeId: string): ComputeNode {
    const node = this.nodes.get(nodeId);
    if (!node || node.nodeType !== nodeType) throw new NotFoundError(`Node ID ${nodeId} doesn't exist`);
    return node;
  }

  toJSON(): Record<string, unknown> {
    return { project_id: this.id, name: this.name, variables: this.variables };
  }
}
