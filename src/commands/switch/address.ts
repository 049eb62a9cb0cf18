import type { Context } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { computeUrl, getCompute } from '../../client/computes.js';
import { findSwitch, type SwitchAddress, type SwitchNode } from '../../client/switches.js';
import { isUuid } from '../../util/uuid.js';
import { resolveProject } from '../shared/project.js';

/** The project and switch a switch verb acts on, both resolved through the controller. */
export async function resolveSwitch(ctx: Context, switchRef: string, projectRef?: string): Promise<SwitchNode> {
  const project = await resolveProject(ctx, projectRef);
  return findSwitch(await ctx.api(), project.project_id, switchRef);
}

/** Where a switch's compute-side routes are (its compute as the controller knows it). */
export function addressOf(node: SwitchNode): SwitchAddress {
  return { projectId: node.project_id, nodeId: node.node_id, computeId: node.compute_id };
}

/** A switch's port NIOs are set on: its address on this server's compute, and how to name it. */
export interface NioTarget {
  at: SwitchAddress;
  label: string;
}

/**
 * The switch of a `switch nio` verb. A full UUID (switch or project) is used as
 * given, without asking the controller, so these verbs work on any compute, even
 * for a switch made through the compute API; names and prefixes are resolved
 * through the controller, and such a switch must then run on this server's compute.
 */
export async function nioTarget(ctx: Context, verb: string, switchRef: string, projectRef?: string): Promise<NioTarget> {
  const projectGiven = (projectRef ?? ctx.profile().defaultProject)?.trim();
  const projectId = projectGiven && isUuid(projectGiven) ? projectGiven : (await resolveProject(ctx, projectRef)).project_id;
  const ref = switchRef.trim();
  if (isUuid(ref)) return { at: { projectId, nodeId: ref }, label: ref };
  const api = await ctx.api();
  const node = await findSwitch(api, projectId, ref);
  if (node.compute_id !== 'local') {
    const compute = await getCompute(api, node.compute_id).catch(() => undefined);
    const where = compute ? `compute ${compute.name} (${computeUrl(compute)})` : `compute ${node.compute_id}`;
    const url = compute ? computeUrl(compute) : 'COMPUTE-URL';
    throw new OperationError(`switch ${node.name} runs on ${where}, not on this server's compute; `
      + `run: emuctl --url ${url} switch nio ${verb} ${node.node_id} PORT ... --project ${projectId}`);
  }
  return { at: { projectId, nodeId: node.node_id }, label: node.name };
}
