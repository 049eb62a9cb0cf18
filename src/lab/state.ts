import type { ApiClient } from '../client/api.js';
import { listComputes, type Compute } from '../client/computes.js';
import { listLinks, type Link } from '../client/links.js';
import { readNodeFile, VPCS_STARTUP_FILE } from '../client/node-files.js';
import { listNodes, type Node } from '../client/nodes.js';
import { listProjects, openProject, type Project } from '../client/projects.js';
import { parseStartupConfig, type StartupSettings } from '../util/vpcs-script.js';
import type { LabSpec } from './model.js';
import { startupNodeFile } from './node-bodies.js';

/** What a server has of one lab: its project, nodes, links and the VPCS startup scripts. */
export interface LabState {
  project?: Project;
  nodes: Node[];
  links: Link[];
  /** node_id → the VPCS's startup script ('' when it has none). */
  scripts: Map<string, string>;
  computes: Compute[];
  /** node_id → startup file path → its text on the server (undefined: it has none); read for docker nodes the lab file gives files. */
  startupFiles?: Map<string, Map<string, string | undefined>>;
}

/** The project named `name` (exact name, as GNS3 keeps project names unique), if the server has it. */
export async function findLabProject(api: ApiClient, name: string): Promise<Project | undefined> {
  return (await listProjects(api)).find((p) => p.name === name);
}

/**
 * Reads the lab `name` from the server: GET projects, computes, nodes, links and each VPCS's
 * startup.vpc. A closed project is opened first (its nodes are only listed while it is open).
 */
export async function readLabState(api: ApiClient, name: string): Promise<LabState> {
  const [project, computes] = await Promise.all([findLabProject(api, name), listComputes(api).catch(() => [] as Compute[])]);
  if (!project) return { nodes: [], links: [], scripts: new Map(), computes };
  return readProjectState(api, project, computes);
}

/** The state of a project the caller found already. */
export async function readProjectState(api: ApiClient, found: Project, computes?: Compute[]): Promise<LabState> {
  const project = found.status === 'closed' ? await openProject(api, found.project_id) : found;
  const [nodes, links, known] = await Promise.all([
    listNodes(api, project.project_id),
    listLinks(api, project.project_id),
    computes ? Promise.resolve(computes) : listComputes(api).catch(() => [] as Compute[]),
  ]);
  const scripts = new Map<string, string>();
  await Promise.all(nodes.filter((n) => n.node_type === 'vpcs').map(async (n) => {
    scripts.set(n.node_id, (await readNodeFile(api, project.project_id, n.node_id, VPCS_STARTUP_FILE)) ?? '');
  }));
  return { project, nodes, links, scripts, computes: known };
}

/**
 * Reads, for each docker node of the file that the server has by name, the startup files the file
 * gives it, from the node's files (where `lab up` wrote them), so that the planner sees a changed one.
 */
export async function readStartupFileState(api: ApiClient, state: LabState, spec: LabSpec): Promise<LabState> {
  const startupFiles = new Map<string, Map<string, string | undefined>>();
  if (!state.project) return { ...state, startupFiles };
  await Promise.all(spec.nodes.filter((n) => n.type === 'docker' && n.files?.length).map(async (wanted) => {
    const node = state.nodes.find((n) => n.name === wanted.name && n.node_type === 'docker');
    if (!node) return;
    const texts = new Map<string, string | undefined>();
    for (const file of wanted.files!) texts.set(file.path, await readNodeFile(api, state.project!.project_id, node.node_id, startupNodeFile(file)));
    startupFiles.set(node.node_id, texts);
  }));
  return { ...state, startupFiles };
}

/** The addresses in a VPCS's startup script. */
export function vpcsSettings(state: LabState, node: Node): StartupSettings {
  return parseStartupConfig(state.scripts.get(node.node_id) ?? '');
}
