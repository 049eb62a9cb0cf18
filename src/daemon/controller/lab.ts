import { AsyncLock } from '../../util/async-lock.js';
import { SingleFlight } from '../../util/single-flight.js';
import { NotFoundError } from '../errors.js';
import { writeRunning } from './running-nodes.js';
import type { Drawing } from './drawing.js';
import type { ControllerLink } from './link.js';
import type { ControllerNode } from './node.js';
import type { Project } from './project.js';

/** The live nodes and links of one opened project, and the computes that know the project. */
export class Lab {
  readonly nodes = new Map<string, ControllerNode>();
  readonly links = new Map<string, ControllerLink>();
  readonly drawings = new Map<string, Drawing>();
  /** Computes on which the project has been created. */
  readonly computesReady = new Set<string>();
  /** Serialises topology changes (node creation, and link creation, which touches two nodes' ports). */
  readonly lock = new AsyncLock();
  private readonly projectCreations = new SingleFlight<string, void>();

  constructor(readonly project: Project) {}

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

  /** True when a node has that name; `except` is a node being renamed. */
  nameTaken(name: string, except?: ControllerNode): boolean {
    for (const n of this.nodes.values()) if (n.name === name && n !== except) return true;
    return false;
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

  private persisting: Promise<void> | null = null;
  private stale = false;

  /** Writes nodes and links into the project's topology file, and which nodes run; concurrent calls coalesce, the last state wins. */
  persist(): Promise<void> {
    this.stale = true;
    if (!this.persisting) this.persisting = this.writeWhileStale().finally(() => (this.persisting = null));
    return this.persisting;
  }

  private async writeWhileStale(): Promise<void> {
    while (this.stale) {
      this.stale = false;
      this.project.topology.nodes = [...this.nodes.values()].map((n) => n.toTopology());
      this.project.topology.links = [...this.links.values()].map((l) => l.toTopology());
      this.project.topology.drawings = [...this.drawings.values()].map((d) => d.toTopology());
      await this.project.save();
      await writeRunning(this.project, [...this.nodes.values()].filter((n) => n.status === 'started').map((n) => n.id));
    }
  }
}

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

  forget(projectId: string): void {
    this.labs.delete(projectId);
  }
}
