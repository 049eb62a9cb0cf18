import { AdapterWires } from '../adapter-wires.js';
import type { NodeContext, NodeStatus } from '../node-context.js';
import { DataplaneNode } from './dataplane-node.js';

/**
 * A node whose adapters are dataplane wires (QEMU, docker): adapter N, port 0 is the link side of
 * wire N, so its ports, their names and their link targets are the wires'.
 */
export abstract class AdapterWiresNode extends DataplaneNode {
  protected readonly wires: AdapterWires;

  /** `what` names the node's kind in port errors ("QEMU VM", "docker node"). */
  constructor(id: string, name: string, ctx: NodeContext, initialStatus: NodeStatus, private readonly what: string) {
    super(id, name, ctx, initialStatus);
    this.wires = new AdapterWires(id, ctx);
  }

  protected dataplanePort(adapter: number, port: number): number {
    return this.wires.port(adapter, port, `${this.what} ${this.name}`);
  }

  protected override dataplaneTarget(adapter: number): { node: string; port: number } {
    return this.wires.target(adapter);
  }

  protected portList() {
    return this.wires.portList();
  }
}
