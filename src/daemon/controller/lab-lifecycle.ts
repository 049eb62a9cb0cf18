import type { Logger } from '../logger.js';
import type { Lab, Labs } from './lab.js';
import { ControllerLink, type LinkEnd } from './link.js';
import type { LinkManager } from './links.js';
import type { NodeCreate, NodeManager } from './nodes.js';
import type { Project } from './project.js';
import type { ProjectLifecycle } from './projects.js';
import { readRunning, writeRunning } from './running-nodes.js';

/** Builds a project's lab on its computes when it opens, and tears it down when it closes. */
export class LabLifecycle implements ProjectLifecycle {
  constructor(private readonly deps: { labs: Labs; nodes: NodeManager; links: LinkManager; log: Logger }) {}

  async opened(project: Project): Promise<void> {
    const lab = this.deps.labs.of(project);
    // Under the lab's lock: a compute that reconnects meanwhile re-reads the lab only once it is built.
    await lab.lock.run(() => this.build(lab, project));
  }

  private async build(lab: Lab, project: Project): Promise<void> {
    const { nodes, links, log } = this.deps;
    for (const entry of project.topology.nodes) {
      try {
        const node = nodes.build(lab, entry as unknown as NodeCreate & { node_id: string });
        lab.nodes.set(node.id, node);
        await nodes.placeOnCompute(lab, node);
      } catch (err) {
        log.error(`project ${project.name}: cannot restore node ${String(entry.name)}: ${(err as Error).message}`);
      }
    }
    for (const entry of project.topology.links) {
      try {
        const ends = (entry.nodes as { node_id: string; adapter_number: number; port_number: number; label?: unknown }[]).map(
          (e): LinkEnd => ({ node: lab.node(e.node_id), adapter_number: e.adapter_number, port_number: e.port_number, label: e.label }),
        ) as [LinkEnd, LinkEnd];
        const link = new ControllerLink(String(entry.link_id), project.id, ends);
        link.filters = (entry.filters as Record<string, unknown[]>) ?? {};
        link.suspend = entry.suspend === true;
        link.linkStyle = (entry.link_style as Record<string, unknown>) ?? {};
        await links.wire(lab, link);
        lab.links.set(link.id, link);
      } catch (err) {
        log.error(`project ${project.name}: cannot restore link ${String(entry.link_id)}: ${(err as Error).message}`);
      }
    }
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
    // Closing the project on each compute frees its nodes, NIOs, UDP ports and captures at once.
    const computes = new Map([...lab.nodes.values()].filter((n) => n.onCompute).map((n) => [n.computeId, n.compute]));
    for (const compute of computes.values()) await compute.closeProject(project.id).catch(() => {});
    for (const node of lab.nodes.values()) node.onCompute = false;
    labs.forget(project.id);
  }
}
