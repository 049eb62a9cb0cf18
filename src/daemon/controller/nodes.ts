import { randomUUID } from 'node:crypto';
import type { NodeAction } from '../compute/compute-api.js';
import { ConflictError } from '../errors.js';
import type { ComputeRegistry } from './computes.js';
import type { ControllerEvents } from './events.js';
import type { Lab } from './lab.js';
import { ControllerNode, NODE_LAYOUT_DEFAULTS, type NodeLayout } from './node.js';
import { nodeTypeOf } from './node-types.js';

export interface NodeCreate extends Partial<NodeLayout> {
  name: string;
  node_type: string;
  compute_id?: string;
  node_id?: string;
  console?: number | null;
  console_type?: string | null;
  properties?: Record<string, unknown>;
}

/** Creates, changes and runs the nodes of a lab on their computes. */
export class NodeManager {
  constructor(private readonly deps: { computes: ComputeRegistry; events: ControllerEvents }) {}

  /** Creates a node on its compute (default `local`) and records it in the project. */
  async create(lab: Lab, body: NodeCreate): Promise<ControllerNode> {
    const type = nodeTypeOf(body.node_type);
    const nodeId = body.node_id ?? randomUUID();
    if (lab.nodes.has(nodeId)) throw new ConflictError(`Node ID ${nodeId} already exists`);
    this.assertNameFree(lab, body.name);
    const node = this.build(lab, { ...body, node_id: nodeId });
    type.prepare?.(node.properties, [...lab.nodes.values()].map((n) => n.properties));
    await this.placeOnCompute(lab, node);
    lab.nodes.set(node.id, node);
    await lab.persist();
    this.publish('node.created', lab, node);
    return node;
  }

  /** A node object from a create body or a topology entry, not yet on its compute. */
  build(lab: Lab, body: NodeCreate & { node_id: string }): ControllerNode {
    const computeId = body.compute_id ?? 'local';
    const compute = this.deps.computes.api(computeId);
    const layout = { ...NODE_LAYOUT_DEFAULTS } as Record<string, unknown>;
    for (const key of Object.keys(layout)) if ((body as unknown as Record<string, unknown>)[key] !== undefined) layout[key] = (body as unknown as Record<string, unknown>)[key];
    const properties = { ...(body.properties ?? {}) };
    if (body.console !== undefined && body.console !== null) properties.console = body.console;
    return new ControllerNode(body.node_id, lab.project.id, body.node_type, computeId, body.name, properties, layout as NodeLayout, body.console_type ?? null, compute, this.deps.computes.hostOf(computeId));
  }

  /** Creates the node on its compute (the compute's project first, once). */
  async placeOnCompute(lab: Lab, node: ControllerNode): Promise<void> {
    await lab.readyOn(node.computeId, () => node.compute.createProject({ project_id: lab.project.id, name: lab.project.name }));
    node.absorb(await node.compute.createNode(lab.project.id, node.nodeType, node.computeBody()));
    node.onCompute = true;
  }

  /** Renames, moves or changes properties; the compute gets the changes that are its business. */
  async update(lab: Lab, node: ControllerNode, body: Partial<NodeCreate>): Promise<ControllerNode> {
    return node.lock.run(async () => {
      if (body.name !== undefined && body.name !== node.name) this.assertNameFree(lab, body.name);
      for (const key of Object.keys(NODE_LAYOUT_DEFAULTS)) {
        const value = (body as Record<string, unknown>)[key];
        if (value !== undefined) (node.layout as Record<string, unknown>)[key] = value;
      }
      const computeChange: Record<string, unknown> = { ...(body.properties ?? {}) };
      if (body.name !== undefined) computeChange.name = body.name;
      if (Object.keys(computeChange).length > 0) {
        node.absorb(await node.compute.updateNode(lab.project.id, node.nodeType, node.id, computeChange));
      }
      await lab.persist();
      this.publish('node.updated', lab, node);
      return node;
    });
  }

  /** start, stop, suspend or reload a node. */
  async act(lab: Lab, node: ControllerNode, action: NodeAction): Promise<ControllerNode> {
    return node.lock.run(async () => {
      await node.compute.nodeAction(lab.project.id, node.nodeType, node.id, action);
      await this.refresh(lab, node);
      await lab.persist();
      // The compute's own report of the change may have been published already.
      this.publishIfChanged(lab, node);
      return node;
    });
  }

  /** Re-reads the node's state from its compute. */
  async refresh(lab: Lab, node: ControllerNode): Promise<void> {
    if (node.onCompute) node.absorb(await node.compute.getNode(lab.project.id, node.nodeType, node.id));
  }

  /** Takes a compute's report of a node (its GET JSON) and publishes node.updated if that changed the node. */
  absorbReport(lab: Lab, node: ControllerNode, state: Record<string, unknown>): void {
    node.absorb(state);
    this.publishIfChanged(lab, node);
  }

  /** Publishes node.updated unless the node's JSON is the one last published. */
  publishIfChanged(lab: Lab, node: ControllerNode): void {
    if (JSON.stringify(node.toJSON()) !== node.lastPublished) this.publish('node.updated', lab, node);
  }

  private publish(action: 'node.created' | 'node.updated', lab: Lab, node: ControllerNode): void {
    const json = node.toJSON();
    node.lastPublished = JSON.stringify(json);
    this.deps.events.publish(action, json, lab.project.id);
  }

  /** Deletes a node from its compute and the project (its links must be gone first). */
  async remove(lab: Lab, node: ControllerNode): Promise<void> {
    await node.lock.run(async () => {
      if (node.onCompute) await node.compute.deleteNode(lab.project.id, node.nodeType, node.id);
      lab.nodes.delete(node.id);
      await lab.persist();
    });
    this.deps.events.publish('node.deleted', node.toJSON(), lab.project.id);
  }

  private assertNameFree(lab: Lab, name: string): void {
    for (const n of lab.nodes.values()) if (n.name === name) throw new ConflictError(`A node named '${name}' already exists in this project`);
  }
}

