/**
 * What the compute has asked of the dataplane and been granted: nodes, their
 * ports, NIOs (with compiled filters), suspend flags and captures. Kept on
 * the main thread from the acknowledged commands, so a restarted worker can
 * be rebuilt to the same state without asking the compute again.
 */
import type { Command, CompiledFilters } from './protocol.js';
import type { CaptureInfo, DataplaneNodeKind, NioSpec, SwitchPortConfig } from './types.js';

interface NioState {
  tunnel: NioSpec;
  filters?: CompiledFilters;
  suspend: boolean;
}

interface NodeState {
  kind: DataplaneNodeKind;
  ports: SwitchPortConfig[];
  macAgeingSeconds?: number;
  suspended: boolean;
  nios: Map<number, NioState>;
  captures: Map<number, CaptureInfo>;
}

export class DesiredState {
  private readonly nodes = new Map<string, NodeState>();

  /** Records a command the worker acknowledged (with the value it answered). */
  apply(cmd: Command, value: unknown): void {
    if (cmd.op === 'createNode') {
      this.nodes.set(cmd.nodeId, { kind: cmd.kind, ports: cmd.ports, macAgeingSeconds: cmd.macAgeingSeconds, suspended: false, nios: new Map(), captures: new Map() });
      return;
    }
    if (cmd.op === 'close') {
      this.nodes.clear();
      return;
    }
    const node = 'nodeId' in cmd ? this.nodes.get(cmd.nodeId) : undefined;
    if (!node) return;
    switch (cmd.op) {
      case 'updatePorts':
        node.ports = cmd.ports;
        for (const map of [node.nios, node.captures]) for (const n of map.keys()) if (!cmd.ports.some((p) => p.port === n)) map.delete(n);
        break;
      case 'deleteNode':
        this.nodes.delete(cmd.nodeId);
        break;
      case 'setNodeSuspended':
        node.suspended = cmd.suspended;
        break;
      case 'addNio':
        node.nios.set(cmd.port, { tunnel: cmd.tunnel, filters: cmd.filters, suspend: cmd.suspend ?? false });
        break;
      case 'updateNio': {
        const nio = node.nios.get(cmd.port);
        if (nio && cmd.filters) nio.filters = cmd.filters;
        if (nio && cmd.suspend !== undefined) nio.suspend = cmd.suspend;
        break;
      }
      case 'removeNio':
        node.nios.delete(cmd.port);
        node.captures.delete(cmd.port);
        break;
      case 'startCapture':
        node.captures.set(cmd.port, value as CaptureInfo);
        break;
      case 'stopCapture':
        node.captures.delete(cmd.port);
        break;
    }
  }

  /** Forgets a capture that stopped on its own (a failed write), unless a newer one replaced it. */
  captureStopped(nodeId: string, port: number, generation: number): void {
    const captures = this.nodes.get(nodeId)?.captures;
    if (captures?.get(port)?.generation === generation) captures.delete(port);
  }

  /** The commands that rebuild this state in a fresh worker, node by node; captures continue their files. */
  rebuild(): Command[][] {
    return [...this.nodes].map(([nodeId, n]) => [
      { op: 'createNode', nodeId, kind: n.kind, ports: n.ports, macAgeingSeconds: n.macAgeingSeconds },
      ...(n.suspended ? [{ op: 'setNodeSuspended', nodeId, suspended: true } as const] : []),
      ...[...n.nios].map(([port, nio]): Command => ({ op: 'addNio', nodeId, port, tunnel: nio.tunnel, filters: nio.filters, suspend: nio.suspend })),
      ...[...n.captures].map(([port, c]): Command => ({ op: 'startCapture', nodeId, port, path: c.path, root: c.root, linkType: c.linkType, resumeGeneration: c.generation })),
    ]);
  }

  /** Counts for the log line. */
  size(): { nodes: number; nios: number; captures: number } {
    let nios = 0, captures = 0;
    for (const n of this.nodes.values()) {
      nios += n.nios.size;
      captures += n.captures.size;
    }
    return { nodes: this.nodes.size, nios, captures };
  }
}
