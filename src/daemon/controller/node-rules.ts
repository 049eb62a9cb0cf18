import type { HostPolicy } from '../host-policy.js';
import type { NodePort, NodeView } from './node-ports.js';

/** A kind as the controller knows it. */
export interface ControllerRules {
  /** Runs from creation on (switch, hub): captures and filters prefer its end of a link, as GNS3 does. */
  alwaysRunning: boolean;
  /** The ports a node of this type has. */
  ports(node: NodeView): NodePort[];
  /** Properties the controller decides before the node goes to its compute (given the other nodes' properties). */
  prepare?(properties: Record<string, unknown>, others: Record<string, unknown>[]): void;
  /** Controller fields the compute needs too (GNS3 sends custom_adapters to QEMU). */
  computeFields?(node: NodeView): Record<string, unknown>;
  /**
   * Checks the properties a client gives that would reach a command line on the compute
   * (InvalidError). The controller runs it for remote computes, which may be GNS3 servers that
   * check nothing; the local compute holds its nodes to the full rules itself. `policy`: the
   * operator's settings that widen what a node may do.
   */
  checkProperties?(properties: Record<string, unknown>, policy: HostPolicy): void;
  /** Its nodes run commands through the exec route (docker); other kinds answer 409 without a call to the compute. */
  exec?: boolean;
  /** Properties only emuctl's computes take (GNS3's schema refuses them): left out of portable archives. */
  emuctlOnlyProperties?: string[];
  /** The node's `image` names an image of the compute's engine (docker), not a file: portable archives keep it whole. */
  imageIsReference?: boolean;
  /**
   * The console type a node made without one gets, sent to its compute. GNS3 2.2's docker compute
   * needs one: without it, it creates the container and then refuses its own answer (400).
   */
  defaultConsoleType?: 'telnet' | 'vnc' | 'spice' | 'spice+agent' | 'http' | 'https' | 'none';
  /**
   * The symbol a node of this type made through the API without one gets. GNS3 gives every such node
   * `:/symbols/computer.svg` (DEFAULT_SYMBOL, used when this is absent); emuctl keeps its device symbol for switches and hubs.
   */
  apiSymbol?: string;
}
