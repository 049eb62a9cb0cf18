import { AsyncLock } from '../../util/async-lock.js';
import { SingleFlight } from '../../util/single-flight.js';
import { takeOut } from '../../util/take-out.js';
import { join } from 'node:path';
import { ConflictError, NotFoundError, storageError } from '../errors.js';
import { GroupCommit } from './group-commit.js';
import { allocateNodeName } from './node-names.js';
import { RUNNING_FILE, writeRunning } from './running-nodes.js';
import type { Drawing } from './drawing.js';
import type { ControllerLink } from './link.js';
import type { ControllerNode } from './node.js';
import type { Project, Topology } from './project.js';
import type { TopologyEntry } from './topology-entry.js';

/**
 * The live nodes, links and drawings of one opened project, and the one place that coordinates
 * changes to them. A change decides and reserves what it needs in a short synchronous step (names,
 * ports, the nodes it links), talks to computes outside any project-wide lock, then applies itself,
 * persists (group commit) and is acknowledged; a failed write undoes it. So a slow compute delays
 * only the changes that wait for it.
 */
export class Lab {
  readonly nodes = new Map<string, ControllerNode>();
  readonly links = new Map<string, ControllerLink>();
  readonly drawings = new Map<string, Drawing>();
  /** Computes on which the project has been created. */
  readonly computesReady = new Set<string>();
  /** Held by whole-lab work (building the lab on open, re-placing nodes a compute lost); a change waits for it only to decide. */
  readonly lock = new AsyncLock();
  private readonly projectCreations = new SingleFlight<string, void>();
  /** Nodes being created: their names and ids are taken, their MACs count. */
  private readonly pendingNodes = new Map<string, ControllerNode>();
  /** Ports a link being created or removed holds (`node/adapter/port`). */
  private readonly heldPorts = new Set<string>();
  /** Names a rename has claimed while its compute call runs. */
  private readonly claimedNames = new Set<string>();
  /** Nodes being deleted: nothing new may attach to them, and their MACs count until their compute has let them go. */
  private readonly deletingNodes = new Map<string, ControllerNode>();
  /** Link changes under way on each node, which a node delete waits for. */
  private readonly nodeWork = new Map<string, Set<Promise<unknown>>>();
  private readonly removals = new SingleFlight<string, void>();
  private readonly running: GroupCommit;
  private runningRecorded = '';
  /** The topology as the file held it when the lab was made: what opening the project builds. */
  readonly saved: Topology;
  /** The topology file's `computes`, kept as read. */
  private readonly computes: Record<string, unknown>[];

  constructor(readonly project: Project) {
    this.saved = project.topology;
    this.computes = this.saved.computes ?? [];
    project.attach({ topology: () => this.topology(), chunks: () => this.topologyChunks() });
    this.running = new GroupCommit(() => writeRunning(project, this.runningIds()), (err) => storageError(join(project.path, RUNNING_FILE), err));
  }

  /** Creates the project on a compute once, however many node creates ask for it at the same time. */
  async readyOn(computeId: string, create: () => Promise<unknown>): Promise<void> {
    if (this.computesReady.has(computeId)) return;
    await this.projectCreations.run(computeId, async () => {
      if (this.computesReady.has(computeId)) return;
      await create();
      this.computesReady.add(computeId);
    });
  }

  /** The node, or NotFoundError. */
  node(nodeId: string): ControllerNode {
    const node = this.nodes.get(nodeId);
    if (!node) throw new NotFoundError(`Node ID ${nodeId} doesn't exist`);
    return node;
  }

  /** A node that changes may attach to: it exists and is not being deleted. */
  liveNode(nodeId: string): ControllerNode {
    const node = this.node(nodeId);
    if (this.deletingNodes.has(nodeId)) throw new ConflictError(`Node ${node.name} is being deleted`);
    return node;
  }

  /** True when a node, or a node being created, has that name; `except` is a node being renamed. */
  nameTaken(name: string, except?: ControllerNode): boolean {
    for (const n of this.nodes.values()) if (n.name === name && n !== except) return true;
    for (const n of this.pendingNodes.values()) if (n.name === name && n !== except) return true;
    return this.claimedNames.has(name);
  }

  /** Holds a name for a rename under way; the returned function gives it back. */
  claimName(name: string): () => void {
    this.claimedNames.add(name);
    return () => this.claimedNames.delete(name);
  }

  /** A free name for `requested`, as GNS3 allocates node names (a taken name gets the next free number). */
  freeName(requested: string, except?: ControllerNode): string {
    return allocateNodeName(requested, (name) => this.nameTaken(name, except));
  }

  /** Every node's properties but `node`'s, pending and departing ones included (for values unique in a project: MACs). */
  otherNodeProperties(node: ControllerNode): Record<string, unknown>[] {
    const all = new Set([...this.nodes.values(), ...this.pendingNodes.values(), ...this.deletingNodes.values()]);
    return [...all].filter((n) => n !== node).map((n) => n.properties);
  }

  /** Reserves a new node's id and name until it is added or abandoned. */
  reserveNode(node: ControllerNode): void {
    if (this.nodes.has(node.id) || this.pendingNodes.has(node.id)) throw new ConflictError(`Node ID ${node.id} already exists`);
    this.pendingNodes.set(node.id, node);
  }

  /** Gives back a reservation of a node that will not be added. */
  abandonNode(node: ControllerNode): void {
    this.pendingNodes.delete(node.id);
  }

  /** Adds a reserved node and persists; acknowledged once on disk, undone if the write fails. */
  addNode(node: ControllerNode): Promise<void> {
    this.pendingNodes.delete(node.id);
    this.nodes.set(node.id, node);
    return this.save([node], () => this.nodes.delete(node.id));
  }

  /** The drawing, or NotFoundError. */
  drawing(drawingId: string): Drawing {
    const drawing = this.drawings.get(drawingId);
    if (!drawing) throw new NotFoundError(`Drawing ID ${drawingId} doesn't exist`);
    return drawing;
  }

  /** The link, or NotFoundError. */
  link(linkId: string): ControllerLink {
    const link = this.links.get(linkId);
    if (!link) throw new NotFoundError(`Link ID ${linkId} doesn't exist`);
    return link;
  }

  /** The link attached to a node's port, if any. */
  linkOnPort(nodeId: string, adapter: number, port: number): ControllerLink | undefined {
    for (const link of this.links.values()) {
      if (link.ends.some((e) => e.node.id === nodeId && e.adapter_number === adapter && e.port_number === port)) return link;
    }
    return undefined;
  }

  /** The links with an end on the node. */
  linksOf(node: ControllerNode): ControllerLink[] {
    return [...this.links.values()].filter((l) => l.ends.some((e) => e.node === node));
  }

  /**
   * Holds the ports of a link being created or removed and runs `work` (the compute calls and the
   * write); the ports are free again when it settles. A node delete waits for the work on its node.
   * With `refuseTaken` (a create): ConflictError when a port is connected or held, or a node is being deleted.
   */
  async withLinkPorts<T>(link: ControllerLink, opts: { refuseTaken: boolean }, work: () => Promise<T>): Promise<T> {
    const keys = link.ends.map((e) => `${e.node.id}/${e.adapter_number}/${e.port_number}`);
    for (const [i, end] of link.ends.entries()) {
      if (!opts.refuseTaken) break;
      this.liveNode(end.node.id);
      if (this.linkOnPort(end.node.id, end.adapter_number, end.port_number) || this.heldPorts.has(keys[i])) {
        throw new ConflictError(`Port ${end.adapter_number}/${end.port_number} of ${end.node.name} is already connected`);
      }
    }
    for (const key of keys) this.heldPorts.add(key);
    const running = Promise.resolve().then(work);
    const settled = running.catch(() => {});
    for (const end of link.ends) {
      let works = this.nodeWork.get(end.node.id);
      if (!works) this.nodeWork.set(end.node.id, (works = new Set()));
      works.add(settled);
    }
    try {
      return await running;
    } finally {
      for (const key of keys) this.heldPorts.delete(key);
      for (const end of link.ends) {
        const works = this.nodeWork.get(end.node.id);
        works?.delete(settled);
        if (works?.size === 0) this.nodeWork.delete(end.node.id);
      }
    }
  }

  /** Adds a wired link and persists; its nodes must still be there (a node delete may have won the race). */
  addLink(link: ControllerLink): Promise<void> {
    for (const end of link.ends) this.liveNode(end.node.id);
    this.links.set(link.id, link);
    return this.save([link], () => this.links.delete(link.id));
  }

  /** Takes a link out of the lab: acknowledged once on disk; if the write fails, it is back in its place. */
  dropLink(link: ControllerLink): Promise<void> {
    return this.save([], takeOut(this.links, [link.id]));
  }

  /** Takes a node and its links out of the lab in one change, one write: if that fails, all of them are back in their places. */
  dropNode(node: ControllerNode, links: ControllerLink[]): Promise<void> {
    const putLinksBack = takeOut(this.links, links.map((l) => l.id));
    const putNodeBack = takeOut(this.nodes, [node.id]);
    return this.save([], () => {
      putNodeBack();
      putLinksBack();
    });
  }

  /** Removes a link or a node once, however many requests (a link delete, a node delete's cascade) ask at the same time. */
  removeOnce(id: string, remove: () => Promise<void>): Promise<void> {
    return this.removals.run(id, remove);
  }

  /**
   * Marks a node as being deleted (new links to it are refused), waits for the link changes under
   * way on it, runs `remove`, and clears the mark whatever happens.
   */
  async deletingNode(node: ControllerNode, remove: () => Promise<void>): Promise<void> {
    this.liveNode(node.id);
    this.deletingNodes.set(node.id, node);
    try {
      await Promise.all(this.nodeWork.get(node.id) ?? []);
      await remove();
    } finally {
      this.deletingNodes.delete(node.id);
    }
  }

  /**
   * Persists the lab: `changed` entries are serialised again, the rest is reused. Resolves once a
   * write holding the change is on disk; if the write fails, `undo` reverts the change and this
   * rejects with a 507 naming the disk problem. Which nodes run is recorded beside it when that changed.
   */
  async save(changed: TopologyEntry[] = [], undo?: () => void): Promise<void> {
    for (const entry of changed) entry.touch();
    await this.project.save(undo && (() => {
      undo();
      for (const entry of changed) entry.touch();
    }));
    const running = JSON.stringify(this.runningIds());
    if (running !== this.runningRecorded) {
      this.runningRecorded = running;
      await this.running.commit();
    }
  }

  /** Persists after a change to nodes' state (start, stop, a compute's report), every node serialised again. */
  persist(): Promise<void> {
    return this.save([...this.nodes.values()]);
  }

  /** The nodes to start again when an auto_start project reopens (switches and hubs always run: they need no record). */
  private runningIds(): string[] {
    return [...this.nodes.values()].filter((n) => n.status === 'started' && !n.alwaysRunning).map((n) => n.id);
  }

  /** The topology as objects. */
  topology(): Topology {
    const parse = (entries: Iterable<TopologyEntry>) => [...entries].map((e) => JSON.parse(e.topologyBytes().subarray(1).toString()) as Record<string, unknown>);
    return { nodes: parse(this.nodes.values()), links: parse(this.links.values()), computes: structuredClone(this.computes), drawings: parse(this.drawings.values()) };
  }

  /** The topology as JSON chunks, each entry's cached bytes reused: no copy of the whole file. */
  private topologyChunks(): Buffer[] {
    const chunks: Buffer[] = [];
    const list = (key: string, entries: Iterable<TopologyEntry>) => {
      chunks.push(Buffer.from(`${key}[`));
      let first = true;
      for (const entry of entries) {
        const bytes = entry.topologyBytes();
        chunks.push(first ? bytes.subarray(1) : bytes);
        first = false;
      }
      chunks.push(CLOSE_LIST);
    };
    list('{"nodes":', this.nodes.values());
    list(',"links":', this.links.values());
    chunks.push(Buffer.from(`,"computes":${JSON.stringify(this.computes)}`));
    list(',"drawings":', this.drawings.values());
    chunks.push(CLOSE_OBJECT);
    return chunks;
  }
}

const CLOSE_LIST = Buffer.from(']');
const CLOSE_OBJECT = Buffer.from('}');

/** The labs of opened projects, by project id. */
export class Labs {
  private readonly labs = new Map<string, Lab>();

  /** The lab of a project, created when first needed. */
  of(project: Project): Lab {
    let lab = this.labs.get(project.id);
    if (!lab) this.labs.set(project.id, (lab = new Lab(project)));
    return lab;
  }

  /** The lab of an opened project, if it has one. */
  find(projectId: string): Lab | undefined {
    return this.labs.get(projectId);
  }

  all(): Lab[] {
    return [...this.labs.values()];
  }

  /** Forgets a closed project's lab; the project keeps the lab's last topology. */
  forget(projectId: string): void {
    this.labs.get(projectId)?.project.attach(null);
    this.labs.delete(projectId);
  }
}
