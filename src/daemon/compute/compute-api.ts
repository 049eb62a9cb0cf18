import type { Duplex, Readable } from 'node:stream';
import type { NioJson } from './node-context.js';
import type { CreateOptions } from './node-types.js';
import type { ProjectFile } from './project-files.js';
import type { NodePortStats } from './project-stats.js';
import type { ManagementNetwork } from './management/types.js';
import type { NODE_CAPTURE_SCHEMA } from '../schemas/nio.js';
import type { FromSchema } from '../schemas/validation.js';

export type NodeAction = 'start' | 'stop' | 'suspend' | 'reload';
export type Json = Record<string, unknown>;
/** A port's start_capture body, as NODE_CAPTURE_SCHEMA accepts it. */
export type CaptureStart = FromSchema<typeof NODE_CAPTURE_SCHEMA>;

/** Where a port is: project, node type, node, adapter, port. */
export interface PortAddress {
  projectId: string;
  nodeType: string;
  nodeId: string;
  adapter: number;
  port: number;
}

/**
 * What the controller asks of a compute. The local compute answers in
 * process; a remote compute over HTTP with the same JSON as GNS3's compute API.
 */
export interface ComputeApi {
  createProject(body: { project_id: string; name?: string }): Promise<Json>;
  closeProject(projectId: string): Promise<void>;
  deleteProject(projectId: string): Promise<void>;
  /** A free UDP port on the compute, held for the project until a NIO takes it. */
  allocateUdpPort(projectId: string): Promise<number>;
  /** Gives back a port from allocateUdpPort that no NIO took. */
  releaseUdpPort(projectId: string, port: number): Promise<void>;

  /** `restoring`: the controller rebuilds a saved project; a compute over HTTP cannot be told, and checks the node as any request. */
  createNode(projectId: string, nodeType: string, body: Json, opts?: CreateOptions): Promise<Json>;
  getNode(projectId: string, nodeType: string, nodeId: string): Promise<Json>;
  updateNode(projectId: string, nodeType: string, nodeId: string, body: Json): Promise<Json>;
  deleteNode(projectId: string, nodeType: string, nodeId: string): Promise<void>;
  nodeAction(projectId: string, nodeType: string, nodeId: string, action: NodeAction): Promise<void>;
  /** Copies a node's files onto another node of the same type (GNS3's duplicate). */
  duplicateNode(projectId: string, nodeType: string, nodeId: string, destinationNodeId: string): Promise<void>;

  /** The files of the project's directory on the compute, with MD5 sums. */
  listFiles(projectId: string): Promise<ProjectFile[]>;
  /** A file of the project, by path relative to its directory. */
  readFile(projectId: string, path: string): Promise<Readable>;
  writeFile(projectId: string, path: string, data: Readable): Promise<void>;

  addNio(at: PortAddress, nio: NioJson): Promise<NioJson>;
  updateNio(at: PortAddress, change: { filters?: Record<string, unknown[]>; suspend?: boolean }): Promise<NioJson>;
  removeNio(at: PortAddress): Promise<void>;

  startCapture(at: PortAddress, body: CaptureStart): Promise<{ pcap_file_path: string }>;
  stopCapture(at: PortAddress): Promise<void>;
  /**
   * The node's telnet console, connected: what is written goes to the console, what it sends comes out.
   * Destroying the stream closes the connection, so that the console is free for the next client.
   */
  openConsole(projectId: string, nodeType: string, nodeId: string): Promise<Duplex>;
  /** Drops the connections to the node's console that the compute holds (its console websockets), as GNS3's console reset. */
  resetConsole(projectId: string, nodeType: string, nodeId: string): Promise<void>;
  /** The port's capture from its first byte, following it while it grows; ends when the capture stops. */
  pcapStream(at: PortAddress): Promise<Readable>;
  /** emuctl: the port counters of every node of the project on the compute that has some (a GNS3 compute answers 404). */
  projectStats(projectId: string): Promise<NodePortStats[]>;
  /** emuctl: sets the project's management network on the compute (null: removes it); a GNS3 compute answers 404. */
  setManagement(projectId: string, network: ManagementNetwork | null): Promise<void>;
  /** Runs a command in a started node that can (docker): its output and exit status. */
  execInNode(projectId: string, nodeType: string, nodeId: string, command: ExecCommand): Promise<ExecOutcome>;
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
