import type { ApiClient, StreamServer } from '../client/api.js';
import { startCapture, stopCapture } from '../client/captures.js';
import { CliError, OperationError } from '../client/errors.js';
import { checkFiltersOffered, createLink, deleteLink, listLinks, updateLink, type Link, type LinkFilters } from '../client/links.js';
import { VPCS_STARTUP_FILE, writeNodeFile } from '../client/node-files.js';
import { createNode, deleteNode, listNodes, nodeAction, updateNode, type Node } from '../client/nodes.js';
import { createProject, type Project } from '../client/projects.js';
import { createNodeFromTemplate, findTemplate } from '../client/templates.js';
import { linkKey, type LinkSpec, type MgmtSpec, type StartupFile } from './model.js';
import { putManagement } from '../client/management.js';
import { notEmuctlError, serverKind } from '../client/server-kind.js';
import { nodeCreateBody, startupNodeFile, vpcsScriptOf } from './node-bodies.js';
import type { Plan, Step } from './plan.js';
import { startAndWait } from './start.js';

/** How the applier shows progress: runs one step's task, showing its plan line while it runs (and the task's progress, for a long one). */
export interface StepReporter {
  step<T>(text: string, task: (progress?: (started: number, total: number) => void) => Promise<T>): Promise<T>;
}

/** A step failed: names it and says how much of the plan was applied before it. */
export class ApplyError extends OperationError {
  constructor(readonly failed: Step, readonly done: number, readonly total: number, cause: Error) {
    const rest = total - done - 1;
    super(`step "${failed.text}" failed: ${cause.message}; ${done} of ${total} steps were applied before it`
      + `${rest > 0 ? `, ${rest} more were not` : ''} (the plan says which; run lab up again to finish)`, (cause as OperationError).status);
  }
}

/** What the applier needs beyond the plan. */
export interface ApplyContext {
  api: ApiClient;
  /** For the notification stream that tells when nodes have started (none: poll). */
  server?: StreamServer;
  /** The lab's project, when it exists already. */
  project?: Project;
  startTimeoutMs?: number;
  /** The file's `mgmt:`: the project's management network is set before its first node is created. */
  mgmt?: MgmtSpec;
  /** Start requests in flight at once (default: 4 per core). */
  startConcurrency?: number;
}

/**
 * Carries out the plan, step by step, in its order. The first failure stops it: an ApplyError
 * names the step, the server's reason, and how many steps were done before it.
 */
export async function applyPlan(plan: Plan, ctx: ApplyContext, report: StepReporter): Promise<Project> {
  // Before anything is made: a server without management networks fails the whole lab in one line.
  if (ctx.mgmt) {
    const kind = await serverKind(ctx.api);
    if (!kind.emuctl) throw notEmuctlError(ctx.api, 'a management network (mgmt:) needs', kind);
  }
  const run = new Applier(plan, ctx);
  for (const [i, step] of plan.steps.entries()) {
    try {
      await report.step(step.text, (progress) => run.step(step, progress));
    } catch (err) {
      if (!(err instanceof CliError) || err.exitCode === 3) throw err;
      throw new ApplyError(step, i, plan.steps.length, err);
    }
  }
  if (!run.project) throw new OperationError(`no project ${plan.lab} after applying the plan`);
  return run.project;
}

class Applier {
  project?: Project;
  private readonly ids: Map<string, string>;
  private readonly links = new Map<string, string>();
  private mgmtSet = false;

  constructor(private readonly plan: Plan, private readonly ctx: ApplyContext) {
    this.project = ctx.project;
    this.ids = new Map(plan.kept);
  }

  private get pid(): string {
    if (!this.project) throw new OperationError(`project ${this.plan.lab} does not exist`);
    return this.project.project_id;
  }

  /** Carries out one step; `progress` hears how many of a start step's nodes are started. */
  async step(step: Step, progress?: (started: number, total: number) => void): Promise<void> {
    const { api } = this.ctx;
    switch (step.kind) {
      case 'create-project':
        // GNS3 closes an auto_close project 5 s after its last notification listener leaves (lab up's
        // own wait stream, or `events`), stopping its nodes: a lab reported up must stay up.
        this.project = await createProject(api, { name: step.name, auto_close: false });
        return;
      case 'delete-link':
        return deleteLink(api, this.pid, step.linkId);
      case 'delete-node':
        return deleteNode(api, this.pid, step.nodeId);
      case 'update-node':
        if (step.put) await updateNode(api, this.pid, step.nodeId, step.put);
        if (step.script !== undefined) await writeNodeFile(api, this.pid, step.nodeId, VPCS_STARTUP_FILE, step.script);
        for (const file of step.files ?? []) await writeNodeFile(api, this.pid, step.nodeId, startupNodeFile(file), startupText(file));
        if (step.restart) await nodeAction(api, this.pid, step.nodeId, 'stop');
        return;
      case 'create-node': {
        const { spec, computeId } = step;
        await this.management();
        const node = spec.template !== undefined
          ? await createNodeFromTemplate(api, this.pid, (await findTemplate(api, spec.template)).template_id, { name: spec.name, compute_id: computeId, x: spec.x ?? 0, y: spec.y ?? 0 })
          : await createNode(api, this.pid, nodeCreateBody(spec, computeId));
        if (node.name !== spec.name) throw new OperationError(`the server named the node ${node.name}, not ${spec.name}`);
        this.ids.set(spec.name, node.node_id);
        if (spec.type === 'vpcs') await writeNodeFile(api, this.pid, node.node_id, VPCS_STARTUP_FILE, vpcsScriptOf(spec));
        // Below the node directory, in a volume of the container: there when it first starts (the last step).
        for (const file of spec.files ?? []) await writeNodeFile(api, this.pid, node.node_id, startupNodeFile(file), startupText(file));
        return;
      }
      case 'create-link': {
        const link = await createLink(api, this.pid, { nodes: this.ends(step.spec), ...(step.spec.suspend ? { suspend: true } : {}) });
        this.links.set(linkKey(step.spec.ends), link.link_id);
        // Filters once the link exists, after checking the server offers them (GNS3 keeps one it cannot apply).
        if (Object.keys(step.spec.filters).length) await this.setFilters(link, step.spec.filters as LinkFilters);
        return;
      }
      case 'update-link':
        if (step.put.filters) await checkFiltersOffered(api, this.pid, step.linkId, Object.keys(step.put.filters));
        await updateLink(api, this.pid, step.linkId, step.put);
        return;
      case 'start-capture':
        await startCapture(api, this.pid, await this.linkId(step.spec));
        return;
      case 'stop-capture':
        await stopCapture(api, this.pid, step.linkId);
        return;
      case 'start-nodes': {
        const nodes = await listNodes(api, this.pid);
        const wanted = step.names.map((name) => nodes.find((n) => n.node_id === this.ids.get(name))).filter((n): n is Node => n !== undefined);
        return startAndWait(api, this.ctx.server, this.pid, wanted, this.ctx.startTimeoutMs, this.ctx.startConcurrency, progress);
      }
    }
  }

  /** The project's management network, set once per run before the first node is made (the server keeps one it has). */
  private async management(): Promise<void> {
    const mgmt = this.ctx.mgmt;
    if (!mgmt || this.mgmtSet) return;
    await putManagement(this.ctx.api, this.pid, { ipv4: mgmt.ipv4, ipv6: mgmt.ipv6, interface: mgmt.interface, ...(mgmt.nat ? { nat: true } : {}) });
    this.mgmtSet = true;
  }

  private async setFilters(link: Link, filters: LinkFilters): Promise<void> {
    await checkFiltersOffered(this.ctx.api, this.pid, link.link_id, Object.keys(filters));
    await updateLink(this.ctx.api, this.pid, link.link_id, { filters });
  }

  private ends(spec: LinkSpec) {
    return spec.ends.map((end) => {
      const id = this.ids.get(end.node);
      if (!id) throw new OperationError(`node ${end.node} does not exist`);
      return { node_id: id, adapter_number: end.adapter, port_number: end.port };
    });
  }

  /** A link made in this run, or one the server had: found by its ends. */
  private async linkId(spec: LinkSpec): Promise<string> {
    const made = this.links.get(linkKey(spec.ends));
    if (made) return made;
    const ends = this.ends(spec);
    const same = (l: Link) => ends.every((e) => l.nodes.some((n) => n.node_id === e.node_id && n.adapter_number === e.adapter_number && n.port_number === e.port_number));
    const found = (await listLinks(this.ctx.api, this.pid)).find(same);
    if (!found) throw new OperationError(`no link ${spec.ends.map((e) => `${e.node}:${e.adapter}/${e.port}`).join('-')}`);
    return found.link_id;
  }
}

/** A startup file's text, read from beside the lab file before planning (readStartupFiles). */
function startupText(file: StartupFile): string {
  if (file.text === undefined) throw new OperationError(`startup file ${file.source} was not read`);
  return file.text;
}
