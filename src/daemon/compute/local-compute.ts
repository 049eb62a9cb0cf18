import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Duplex, Readable } from 'node:stream';
import type { CaptureFailure, DataplaneApi } from '../dataplane/types.js';
import { pcapLinkType } from '../../util/data-link-types.js';
import { ConflictError, diskProblem, ForbiddenError, InvalidError, NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import { validate } from '../schemas/validation.js';
import { captureFilePath, followFile, type CaptureState } from './capture-files.js';
import type { CaptureStart, ComputeApi, ExecCommand, ExecOutcome, Json, NodeAction, PortAddress } from './compute-api.js';
import { ComputeEvents } from './compute-events.js';
import { connectNodeConsole } from './console-connection.js';
import { ComputeProject } from './compute-project.js';
import { HostInterfacePolicy } from './host-interface-policy.js';
import { checkProjectDirectory } from './project-directory.js';
import type { NioChange, NioJson } from './node-context.js';
import type { CreateOptions, NodeTypeRegistry } from './node-types.js';
import { nodeOwner, projectOwner } from './ownership.js';
import { makeDirs, relativeBelow, withDir } from '../safe-fs.js';
import { checkRelativePath, copyNodeDirectory, listProjectFiles, openProjectFile, pathInside, projectBelow, writeProjectFile, type ProjectFile } from './project-files.js';
import { projectPortStats, type NodePortStats } from './project-stats.js';
import type { ComputeResources } from './resources.js';
import type { ComputeManagement } from './management/compute-management.js';
import type { ManagementNetwork } from './management/types.js';
import { SingleFlight } from '../../util/single-flight.js';
import { eachLimited } from '../../util/each-limited.js';

/** Nodes a project's close stops and removes at once: each waits mostly on its emulator or Docker. */
const CLOSE_CONCURRENCY = 8;

export interface LocalComputeDeps {
  dataplane: DataplaneApi;
  nodeTypes: NodeTypeRegistry;
  projectsDir: string;
  /** Address NIO sockets bind to (the compute's host address). */
  bindHost: string;
  /** UDP ports, console ports and VPCS MAC bytes, each held by a node or a project. */
  resources: ComputeResources;
  log: Logger;
  /** The host interfaces clients may name (cloud ports, nio_tap, nio_ethernet); default: all but the loopback and emuctl's own. */
  hostInterfaces?: HostInterfacePolicy;
  /** The projects' management networks (none: this compute refuses one with a 409). */
  management?: ComputeManagement;
}

/** This daemon's own compute: projects, nodes and their ports, in process. */
export class LocalCompute implements ComputeApi {
  readonly projects = new Map<string, ComputeProject>();
  private readonly projectCreations = new SingleFlight<string, ComputeProject>();
  /** `project/node` ids whose create is under way: a second create with the same id is refused. */
  private readonly creating = new Set<string>();
  /** What `/v2/compute/notifications/ws` sends: node status changes and log messages of the compute's projects. */
  readonly events = new ComputeEvents();
  /** Running captures by file, so that one a failed write stops is named by its node and port. */
  private readonly captures = new Map<string, PortAddress>();

  private readonly consoleResetListeners: ((projectId: string, nodeId: string) => void)[] = [];

  private readonly interfacePolicy: HostInterfacePolicy;

  constructor(private readonly deps: LocalComputeDeps) {
    this.interfacePolicy = deps.hostInterfaces ?? new HostInterfacePolicy();
    deps.dataplane.onCaptureFailed?.((failure) => this.captureFailed(failure));
  }

  get resources(): ComputeResources {
    return this.deps.resources;
  }

  /** The host interfaces clients may name on this compute (the cloud_interfaces setting). */
  get hostInterfaces(): HostInterfacePolicy {
    return this.interfacePolicy;
  }

  get nodeTypes(): NodeTypeRegistry {
    return this.deps.nodeTypes;
  }

  /** The project, or NotFoundError. */
  project(projectId: string): ComputeProject {
    const project = this.projects.get(projectId);
    if (!project) throw new NotFoundError(`Project ID ${projectId} doesn't exist on this compute`);
    return project;
  }

  /**
   * Creates the project, or returns it when it exists; concurrent calls for one id make it once.
   * `path` (GNS3 sends it to its local compute) must be inside the projects directory.
   */
  async createProject(body: { project_id?: string; name?: string | null; path?: string | null }): Promise<Json> {
    const id = body.project_id ?? randomUUID();
    const project = await this.projectCreations.run(id, async () => {
      const existing = this.projects.get(id);
      if (existing) return existing;
      const path = body.path ? pathInside(this.deps.projectsDir, relativeBelow(this.deps.projectsDir, body.path)) : join(this.deps.projectsDir, id);
      if (body.path) await checkProjectDirectory(this.deps.projectsDir, id, path, [...this.projects.values()]);
      const created = new ComputeProject(id, body.name ?? id, path);
      await makeDirs(this.deps.projectsDir, projectBelow(this.deps.projectsDir, path, 'project-files/captures'));
      this.projects.set(id, created);
      return created;
    });
    return project.toJSON();
  }

  async updateProject(projectId: string, body: { variables?: unknown[] | null }): Promise<Json> {
    const project = this.project(projectId);
    if (body.variables !== undefined) project.variables = body.variables;
    return project.toJSON();
  }

  /** Stops every node of the project (a few at a time) and frees all it held; the project is forgotten by the compute. */
  async closeProject(projectId: string): Promise<void> {
    const project = this.project(projectId);
    await eachLimited([...project.nodes.values()], CLOSE_CONCURRENCY, (node) => node.destroy().catch((err) => this.deps.log.warn(`closing ${node.name}: ${err.message}`)));
    project.nodes.clear();
    await this.deps.management?.set(projectId, null).catch((err: Error) => this.deps.log.error(`removing the management network of ${projectId}: ${err.message}`));
    this.resources.releaseProject(projectId);
    this.projects.delete(projectId);
  }

  /** Closes the project and removes its directory, as GNS3's compute does. */
  async deleteProject(projectId: string): Promise<void> {
    const project = this.project(projectId);
    await this.closeProject(projectId);
    await rm(project.path, { recursive: true, force: true });
  }

  /** Copies a node's files onto another node of the same type, which then rewrites what names it (a VPCS's pcname). */
  async duplicateNode(projectId: string, nodeType: string, nodeId: string, destinationNodeId: string): Promise<void> {
    const project = this.project(projectId);
    const source = project.node(nodeType, nodeId);
    const destination = project.node(nodeType, destinationNodeId);
    if (source.copyFilesTo) await source.copyFilesTo(destination);
    else await copyNodeDirectory(project.nodeDir(nodeType, nodeId), project.nodeDir(nodeType, destinationNodeId));
    await destination.update({ name: destination.name });
  }

  async listFiles(projectId: string): Promise<ProjectFile[]> {
    return listProjectFiles(this.deps.projectsDir, projectBelow(this.deps.projectsDir, this.project(projectId).path));
  }

  async readFile(projectId: string, path: string): Promise<Readable> {
    return openProjectFile(this.deps.projectsDir, projectBelow(this.deps.projectsDir, this.project(projectId).path, checkRelativePath(path)));
  }

  async writeFile(projectId: string, path: string, data: Readable): Promise<void> {
    await writeProjectFile(this.deps.projectsDir, projectBelow(this.deps.projectsDir, this.project(projectId).path, checkRelativePath(path)), data);
  }

  /** A UDP port held by the project until a NIO takes it as its lport (or it is released). */
  async allocateUdpPort(projectId: string): Promise<number> {
    this.project(projectId);
    return this.resources.udpPorts.allocate(projectOwner(projectId));
  }

  /** Gives back a port from allocateUdpPort that no NIO took (a link whose wiring failed). */
  async releaseUdpPort(projectId: string, port: number): Promise<void> {
    this.project(projectId);
    this.resources.udpPorts.release(port, projectOwner(projectId));
  }

  async createNode(projectId: string, nodeType: string, body: Json, opts: CreateOptions = {}): Promise<Json> {
    const project = this.project(projectId);
    const def = this.deps.nodeTypes.find(nodeType);
    if (!def) throw new InvalidError(`Unknown node type '${nodeType}' (known: ${this.deps.nodeTypes.all().map((d) => d.type).join(', ')})`);
    validate(def.createSchema, body);
    const nodeId = (body.node_id as string | undefined) ?? randomUUID();
    const key = `${projectId}/${nodeId}`;
    if (project.nodes.has(nodeId) || this.creating.has(key)) throw new ConflictError(`Node ID ${nodeId} already exists`);
    this.creating.add(key);
    const dirExisted = existsSync(project.nodeDir(nodeType, nodeId));
    try {
      const node = await def.create({ ...body, node_id: nodeId }, {
        projectId,
        projectDir: project.path,
        dataplane: this.deps.dataplane,
        resources: this.resources,
        bindHost: this.deps.bindHost,
        hostInterfaces: this.interfacePolicy,
        log: this.deps.log,
        events: this.events,
        management: () => this.deps.management?.access(projectId),
      }, opts);
      project.nodes.set(node.id, node);
      return node.toJSON();
    } catch (err) {
      await this.undoCreate(project, nodeType, nodeId, dirExisted);
      throw err;
    } finally {
      this.creating.delete(key);
    }
  }

  /**
   * The one place that undoes a failed node create, whichever step failed: every allocation the node's
   * owner holds, its dataplane node, and its directory unless it was there before (a restored node's files).
   */
  private async undoCreate(project: ComputeProject, nodeType: string, nodeId: string, dirExisted: boolean): Promise<void> {
    this.resources.releaseOwner(nodeOwner(project.id, nodeId));
    await this.deps.dataplane.deleteNode(nodeId).catch(() => {}); // absent when the step that makes it was not reached
    if (!dirExisted) await rm(project.nodeDir(nodeType, nodeId), { recursive: true, force: true }).catch((err) => this.deps.log.warn(`removing ${nodeId}'s directory: ${err.message}`));
  }

  async getNode(projectId: string, nodeType: string, nodeId: string): Promise<Json> {
    return this.project(projectId).node(nodeType, nodeId).toJSON();
  }

  async updateNode(projectId: string, nodeType: string, nodeId: string, body: Json): Promise<Json> {
    const node = this.project(projectId).node(nodeType, nodeId);
    validate(this.deps.nodeTypes.find(nodeType)!.updateSchema, body);
    await node.update(body);
    return node.toJSON();
  }

  /** Stops the node, frees all it held and removes its directory, as GNS3 does. */
  async deleteNode(projectId: string, nodeType: string, nodeId: string): Promise<void> {
    const project = this.project(projectId);
    const node = project.node(nodeType, nodeId);
    await node.destroy();
    project.nodes.delete(nodeId);
    this.resources.releaseOwner(nodeOwner(projectId, nodeId));
    // Removed from its parent held open: a node-type directory swapped for a link removes nothing elsewhere.
    await withDir(this.deps.projectsDir, projectBelow(this.deps.projectsDir, dirname(project.nodeDir(nodeType, nodeId))).split('/'), false, (dir) => dir.remove(nodeId, true)).catch((err) => {
      if (err instanceof ForbiddenError) this.deps.log.warn(`node ${nodeId}: directory not removed: ${err.message}`);
      else if (!(err instanceof NotFoundError)) throw err;
    });
    this.events.publish('node.deleted', node.toJSON(), projectId);
  }

  async nodeAction(projectId: string, nodeType: string, nodeId: string, action: NodeAction): Promise<void> {
    await this.project(projectId).node(nodeType, nodeId)[action]();
  }

  projectStats(projectId: string): Promise<NodePortStats[]> {
    return projectPortStats(this.project(projectId));
  }

  /** Sets the project's management network; nodes that are started join it at their next start. */
  async setManagement(projectId: string, network: ManagementNetwork | null): Promise<void> {
    this.project(projectId);
    if (!this.deps.management) throw new ConflictError('this compute has no management networks');
    await this.deps.management.set(projectId, network);
  }

  /** The project's management network on this compute, or null. */
  management(projectId: string): ManagementNetwork | null {
    this.project(projectId);
    return this.deps.management?.network(projectId) ?? null;
  }

  /** A node kind without exec (everything but docker) is a 409 pointing at its console. */
  async execInNode(projectId: string, nodeType: string, nodeId: string, { command, timeout }: ExecCommand): Promise<ExecOutcome> {
    const node = this.project(projectId).node(nodeType, nodeId);
    if (!node.exec) throw new ConflictError(`node ${node.name} (${nodeType}) has no exec; use its console`);
    return node.exec(command, timeout);
  }

  openConsole(projectId: string, nodeType: string, nodeId: string): Promise<Duplex> {
    return connectNodeConsole(this.project(projectId).node(nodeType, nodeId));
  }

  /** Whoever holds console connections (the HTTP layer's console websockets) drops a node's when told. */
  onConsoleReset(listener: (projectId: string, nodeId: string) => void): void {
    this.consoleResetListeners.push(listener);
  }

  async resetConsole(projectId: string, nodeType: string, nodeId: string): Promise<void> {
    this.project(projectId).node(nodeType, nodeId);
    for (const listener of this.consoleResetListeners) listener(projectId, nodeId);
  }

  addNio(at: PortAddress, nio: NioJson): Promise<NioJson> {
    return this.nodeAt(at).addNio(at.adapter, at.port, nio);
  }

  updateNio(at: PortAddress, change: NioChange): Promise<NioJson> {
    return this.nodeAt(at).updateNio(at.adapter, at.port, change);
  }

  removeNio(at: PortAddress): Promise<void> {
    return this.nodeAt(at).removeNio(at.adapter, at.port);
  }

  async startCapture(at: PortAddress, body: CaptureStart): Promise<{ pcap_file_path: string }> {
    const node = this.nodeAt(at);
    const path = captureFilePath(this.project(at.projectId).capturesDir, body.capture_file_name);
    const linkType = pcapLinkType(body.data_link_type);
    this.forgetCapture(at);
    await node.startCapture(at.adapter, at.port, path, linkType, this.deps.projectsDir);
    this.captures.set(path, at);
    return { pcap_file_path: path };
  }

  async stopCapture(at: PortAddress): Promise<void> {
    await this.nodeAt(at).stopCapture(at.adapter, at.port);
    this.forgetCapture(at);
  }

  private forgetCapture(at: PortAddress): void {
    for (const [path, running] of this.captures) {
      if (running.projectId === at.projectId && running.nodeId === at.nodeId && running.adapter === at.adapter && running.port === at.port) this.captures.delete(path);
    }
  }

  /** A failed write (full disk) stopped a capture: logged, and told to the project as `log.error` and `capture.stopped`. */
  private captureFailed(failure: CaptureFailure): void {
    const at = this.captures.get(failure.path);
    if (!at) return;
    this.captures.delete(failure.path);
    const name = this.projects.get(at.projectId)?.nodes.get(at.nodeId)?.name ?? at.nodeId;
    const message = `Capture on ${name} port ${at.adapter}/${at.port} stopped: cannot write ${failure.path}: ${diskProblem(failure.code)}`;
    this.deps.log.error(message);
    this.events.log('error', message, at.projectId);
    this.events.captureStopped(at, failure.path, message);
  }

  async pcapStream(at: PortAddress): Promise<Readable> {
    const node = this.nodeAt(at);
    const capture = await node.captureInfo(at.adapter, at.port);
    if (!capture) throw new ConflictError(`Port ${at.port} of ${node.name} is not capturing`);
    return followFile(capture.root, capture.path, async (): Promise<CaptureState> => {
      const now = await node.captureInfo(at.adapter, at.port).catch(() => null);
      if (!now) return 'stopped';
      return now.generation === capture.generation ? 'growing' : 'replaced';
    });
  }

  /** Frees every project (daemon shutdown). */
  async closeAll(): Promise<void> {
    for (const id of [...this.projects.keys()]) await this.closeProject(id);
  }

  private nodeAt(at: PortAddress) {
    return this.project(at.projectId).node(at.nodeType, at.nodeId);
  }
}
