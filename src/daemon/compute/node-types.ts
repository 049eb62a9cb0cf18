import type { Router } from 'express';
import type { TypedSchema } from '../schemas/validation.js';
import type { NodeContext } from './node-context.js';
import type { DataplaneNode } from './nodes/dataplane-node.js';

/** A node that the compute runs. */
export interface ComputeNode extends DataplaneNode {
  update(body: Record<string, unknown>): Promise<void>;
  /** Copies this node's files onto `destination` (GNS3's duplicate) when a plain copy of its directory will not do. */
  copyFilesTo?(destination: ComputeNode): Promise<void>;
  /** Where the node's telnet console listens on this machine; undefined when it has none (another console type, or none). */
  telnetConsole?(): TelnetConsole | undefined;
  /** Runs a command in the started node (a container), as `execInNode` gives it. */
  exec?(command: string[], timeoutSeconds?: number): Promise<{ output: string; exit_code: number }>;
}

/** A command to run in a node (argv, no shell) and how long it may take, in seconds. */
export interface ExecCommand {
  command: string[];
  timeout?: number;
}

/** What a command run in a node gave: stdout and stderr as they came, and its exit status. */
export interface ExecOutcome {
  output: string;
  exit_code: number;
}

/** A telnet console's listening address, as the compute itself reaches it. */
export interface TelnetConsole {
  host: string;
  port: number;
}

type NodeBody = Record<string, unknown>;

/** How a node is created: `restoring` when the controller rebuilds a saved project (opened or imported), not a client's request. */
export interface CreateOptions {
  restoring?: boolean;
}

/** What a kind's own routes may ask of the compute they are mounted on (the compute itself answers them). */
export interface KindRouteHost {
  project(projectId: string): { node(nodeType: string, nodeId: string): ComputeNode };
  execInNode(projectId: string, nodeType: string, nodeId: string, command: ExecCommand): Promise<ExecOutcome>;
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
  routes?(router: Router, compute: KindRouteHost): void;
  /** Templates of the kind's routes whose request bodies they read as streams (uploads), never parsed as JSON. */
  streamedRoutes?: string[];
  /** Templates of the kind's routes that send back a file a client stored: downloaded, never shown as a page. */
  downloadRoutes?: string[];
  /** Removes what a dead predecessor of this daemon left behind (run once at start, before any node is made). */
  cleanupLeftovers?(): Promise<void>;
  /** Releases what the kind holds daemon-wide (a client connection) when the daemon stops. */
  close?(): Promise<void>;
}

/** One kind of node the compute can run, in the registry: its GNS3 type name (also the URL segment) and its compute side. */
export type NodeTypeDefinition = ComputeKind & { type: string };

/** A kind's compute side whose create() takes the body type its create schema describes (create bodies are validated before create() runs). */
export function computeKind<C extends NodeBody>(def: Omit<ComputeKind, 'createSchema' | 'create'> & { createSchema: TypedSchema<C>; create(body: C, ctx: NodeContext, opts?: CreateOptions): Promise<ComputeNode> }): ComputeKind {
  return def as ComputeKind;
}

/** The node kinds a compute knows, by GNS3 type name. */
export class NodeTypeRegistry {
  private readonly types = new Map<string, NodeTypeDefinition>();

  register(def: NodeTypeDefinition): this {
    this.types.set(def.type, def);
    return this;
  }

  /** The definition, or undefined for an unknown type. */
  find(type: string): NodeTypeDefinition | undefined {
    return this.types.get(type);
  }

  all(): NodeTypeDefinition[] {
    return [...this.types.values()];
  }

  /** Types this machine can run, for capabilities. */
  availableTypes(): string[] {
    return this.all().filter((d) => d.available()).map((d) => d.type);
  }
}
