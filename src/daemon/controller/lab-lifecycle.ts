import { validateFilters } from '../dataplane/filters/catalog.js';
import type { Logger } from '../logger.js';
import { restoreDrawing } from './drawings.js';
import { LOCAL_COMPUTE_ID, type ComputeRegistry } from './computes.js';
import type { Lab, Labs } from './lab.js';
import { ControllerLink, type LinkEnd, type LinkLabel } from './link.js';
import type { LinkManager } from './links.js';
import type { NodeCreate, NodeManager } from './nodes.js';
import type { Project, Topology } from './project.js';
import type { ProjectLifecycle } from './projects.js';
import { readRunning, writeRunning } from './running-nodes.js';

/** Builds a project's lab on its computes when it opens, and tears it down when it closes. */
export class LabLifecycle implements ProjectLifecycle {
  constructor(private readonly deps: { labs: Labs; nodes: NodeManager; links: LinkManager; computes: ComputeRegistry; log: Logger }) {}

  async opened(project: Project): Promise<void> {
    const lab = this.deps.labs.of(project);
    // Under the lab's lock: a compute that reconnects meanwhile re-reads the lab only once it is built.
    await lab.lock.run(() => this.build(lab, project, lab.saved));
  }

  private async build(lab: Lab, project: Project, saved: Topology): Promise<void> {
    const { nodes, links, log } = this.deps;
    for (const entry of saved.nodes) {
      try {
        const node = nodes.build(lab, entry as unknown as NodeCreate & { node_id: string });
        lab.nodes.set(node.id, node);
        await nodes.placeOnCompute(lab, node, { restoring: true });
      } catch (err) {
        log.error(`project ${project.name}: cannot restore node ${String(entry.name)}: ${(err as Error).message}`);
      }
    }
    for (const entry of saved.links) {
      try {
        const ends = (entry.nodes as { node_id: string; adapter_number: number; port_number: number; label?: LinkLabel | null }[]).map(
          (e): LinkEnd => ({ node: lab.node(e.node_id), adapter_number: e.adapter_number, port_number: e.port_number, label: e.label }),
        ) as [LinkEnd, LinkEnd];
        const link = new ControllerLink(String(entry.link_id), project.id, ends);
        link.filters = validateFilters((entry.filters as Record<string, unknown>) ?? {});
        link.suspend = entry.suspend === true;
        link.linkStyle = (entry.link_style as Record<string, unknown>) ?? {};
        await links.wire(lab, link);
        lab.links.set(link.id, link);
      } catch (err) {
        log.error(`project ${project.name}: cannot restore link ${String(entry.link_id)}: ${(err as Error).message}`);
      }
    }
    for (const entry of saved.drawings) restoreDrawing(lab, entry);
    if (project.settings.auto_start) {
      const running = await readRunning(project);
      for (const node of lab.nodes.values()) {
        if (running.includes(node.id) && node.onCompute) await nodes.act(lab, node, 'start').catch((err) => log.error(`auto-start ${node.name}: ${err.message}`));
      }
    }
  }

  async closing(project: Project): Promise<void> {
    const { labs } = this.deps;
    const lab = labs.of(project);
    await writeRunning(project, [...lab.nodes.values()].filter((n) => n.status === 'started').map((n) => n.id));
    // Closing the project on each compute that knows it (nodes or not) frees its nodes, NIOs, UDP ports and captures at once.
    for (const computeId of lab.computesReady) {
      await Promise.resolve().then(() => this.deps.computes.api(computeId).closeProject(project.id)).catch(() => {});
    }
    for (const node of lab.nodes.values()) node.onCompute = false;
    labs.forget(project.id);
  }

  /** A deleted project leaves no files on its remote computes (the local compute shares the project's directory). */
  async deleting(project: Project): Promise<void> {
    await removeFromRemoteComputes(project, this.deps.computes, this.deps.log);
  }
}

/** Deletes a (closed) project on the remote computes its nodes use, files included; a compute that fails is logged, not fatal. */
export async function removeFromRemoteComputes(project: Project, computes: ComputeRegistry, log: Logger): Promise<void> {
  const remote = new Set(project.topology.nodes.map((n) => String(n.compute_id ?? LOCAL_COMPUTE_ID)).filter((id) => id !== LOCAL_COMPUTE_ID));
  for (const computeId of remote) {
    await Promise.resolve()
      .then(async () => {
        const api = computes.api(computeId);
        await api.createProject({ project_id: project.id, name: project.name });
        await api.deleteProject(project.id);
      })
      .catch((err) => log.warn(`project ${project.name}: cannot delete its files on compute ${computeId}: ${(err as Error).message}`));
  }
}
