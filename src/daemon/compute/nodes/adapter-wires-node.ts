import { AdapterWires } from '../adapter-wires.js';
import type { NodeContext, NodeStatus } from '../node-context.js';
import type { TelnetConsole } from '../node-types.js';
import { reachableHost } from '../../../util/reachable-host.js';
import { DataplaneNode } from './dataplane-node.js';

/**
 * A node whose adapters are dataplane wires (QEMU, docker): adapter N, port 0 is the link side of
 * wire N, so its ports, their names and their link targets are the wires'.
 */
export abstract class AdapterWiresNode extends DataplaneNode {
  protected readonly wires: AdapterWires;
  /** The node's console port (null: none), and its settings, which say the console's type. */
  abstract consolePort: number | null;
  abstract settings: { console_type?: string | null };

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

  /** A telnet console (QEMU's relay, docker's server) listens on the compute's host at the node's console port. */
  telnetConsole(): TelnetConsole | undefined {
    if (this.settings.console_type !== 'telnet' || this.consolePort === null) return undefined;
    return { host: reachableHost(this.ctx.bindHost), port: this.consolePort };
  }
}
