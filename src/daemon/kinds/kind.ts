import type { Router } from 'express';
import type { LocalCompute } from '../compute/local-compute.js';
import type { NodeContext } from '../compute/node-context.js';
import type { ComputeNode, CreateOptions } from '../compute/node-types.js';
import type { ProcessRegistry } from '../compute/process/process-registry.js';
import type { NodePort } from '../controller/node-ports.js';
import type { TemplateSpec } from '../controller/template-types.js';
import type { Logger } from '../logger.js';
import type { TypedSchema } from '../schemas/validation.js';
import type { HostPolicy } from '../host-policy.js';
import type { DaemonSettings } from '../settings.js';

type NodeBody = Record<string, unknown>;

/** What the daemon hands every kind's compute side when it starts. */
export interface KindDeps {
  settings: DaemonSettings;
  /** The daemon's environment, where binaries are looked up. */
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** The daemon's record of the processes it runs (a restarted daemon ends what a dead one left). */
  registry?: ProcessRegistry;
}

/** A kind as one compute runs it. */
export interface ComputeKind {
  /** The compute validates a create body against it before create() sees the body. */
  createSchema: TypedSchema<NodeBody>;
  updateSchema: TypedSchema<NodeBody>;
  create(body: NodeBody, ctx: NodeContext, opts?: CreateOptions): Promise<ComputeNode>;
  /** Whether this machine can run it (e.g. the vpcs binary is installed). */
  available(): boolean;
  /** GNS3's `start` answers 200 with the node for emulators (VPCS, QEMU, docker) and 204 for built-in devices. */
  startAnswersNode?: boolean;
  /** The kind's own compute routes besides the common node routes (QEMU's disks and binaries, docker's images). */
  routes?(router: Router, compute: LocalCompute): void;
  /** Templates of the kind's routes whose request bodies they read as streams (uploads), never parsed as JSON. */
  streamedRoutes?: string[];
  /** Templates of the kind's routes that send back a file a client stored: downloaded, never shown as a page. */
  downloadRoutes?: string[];
  /** Removes what a dead predecessor of this daemon left behind (run once at start, before any node is made). */
  cleanupLeftovers?(): Promise<void>;
  /** Releases what the kind holds daemon-wide (a client connection) when the daemon stops. */
  close?(): Promise<void>;
}

/** What a node type's controller rules may read of a node. */
export interface NodeView {
  properties: Record<string, unknown>;
  /** The compute's last node JSON. */
  computeState: Record<string, unknown>;
  /** Controller-side port naming (GNS3 node fields). */
  layout: { port_name_format: string; port_segment_size: number; first_port_name: string | null; custom_adapters: unknown[] };
}

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

/**
 * One node kind, whole: its GNS3 type name (also the URL segment of its compute routes), the
 * controller's rules, its template, and the compute side the daemon builds from its dependencies.
 * Both registries are built from the one list in kinds/index.ts.
 */
export interface NodeKind {
  type: string;
  controller: ControllerRules;
  /** What templates of this type look like (GNS3 2.2's template schema), built-in one included. */
  template: TemplateSpec;
  compute(deps: KindDeps): ComputeKind;
}
