import { LOCAL_COMPUTE_ID } from './computes.js';
import { defaultLinkLabel, type LinkLabel } from './link.js';
import { NODE_LAYOUT_DEFAULTS } from './node.js';
import type { NodePort } from './node-ports.js';
import type { ControllerNodeTypes } from './node-types.js';
import type { Project } from './project.js';

type Entry = Record<string, unknown>;

/**
 * The GNS3 node JSON of a project that is not opened, from the topology it was read from (a project
 * just imported, say): nothing runs, so every node is stopped. `consoleHostOf` is null for a compute
 * this controller no longer knows.
 */
export function savedNodesJSON(project: Project, consoleHostOf: (computeId: string) => string | null, types: ControllerNodeTypes): Entry[] {
  return project.topology.nodes.map((entry) => {
    const computeId = String(entry.compute_id ?? LOCAL_COMPUTE_ID);
    const properties = (entry.properties ?? {}) as Entry;
    const layout = { ...NODE_LAYOUT_DEFAULTS } as typeof NODE_LAYOUT_DEFAULTS;
    for (const key of Object.keys(layout) as (keyof typeof layout)[]) if (entry[key] !== undefined) (layout as Entry)[key] = entry[key];
    return {
      ...layout,
      ...entry,
      project_id: project.id,
      compute_id: computeId,
      status: 'stopped',
      console: entry.console ?? null,
      console_type: entry.console_type ?? 'none',
      console_host: consoleHostOf(computeId),
      command_line: null,
      node_directory: null,
      properties,
      ports: savedPorts(types, String(entry.node_type), properties, layout),
    };
  });
}

function savedPorts(types: ControllerNodeTypes, nodeType: string, properties: Entry, layout: typeof NODE_LAYOUT_DEFAULTS): NodePort[] {
  try {
    return types.find(nodeType)?.ports({ properties, computeState: {}, layout }) ?? [];
  } catch {
    return []; // a port name format the node type refuses: the opened project reports that error
  }
}

/** The GNS3 link JSON of a project that is not opened, from its topology: no capture runs; ends saved without a label get GNS3's default one. */
export function savedLinksJSON(project: Project): Entry[] {
  return project.topology.links.map((entry) => ({
    link_id: entry.link_id,
    project_id: project.id,
    link_type: 'ethernet',
    nodes: ((entry.nodes ?? []) as { node_id: string; adapter_number: number; port_number: number; label?: LinkLabel | null }[]).map((e) => ({
      node_id: e.node_id,
      adapter_number: e.adapter_number,
      port_number: e.port_number,
      label: e.label ?? defaultLinkLabel(e.adapter_number, e.port_number),
    })),
    capturing: false,
    capture_file_name: null,
    capture_file_path: null,
    capture_compute_id: null,
    filters: entry.filters ?? {},
    link_style: entry.link_style ?? {},
    suspend: entry.suspend === true,
  }));
}
