import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isUuid } from '../../util/uuid.js';
import { walkFiles } from '../compute/project-files.js';
import { ConflictError, InvalidError, PayloadTooLargeError } from '../errors.js';
import { jsonShapeProblem } from '../schemas/json-shape.js';
import { writeFileAtomic } from '../atomic-write.js';
import { filenameFor } from './project.js';
import type { ControllerNodeTypes } from './node-types.js';

/**
 * The layout of a GNS3 2.2 portable project (`.gns3project`, a ZIP): the topology as `project.gns3`
 * at the root, the project's own files beside it (`project-files/<node_type>/<node_id>/…`),
 * optional `snapshots/` and `images/<type>/`.
 */
export const ARCHIVE_TOPOLOGY = 'project.gns3';


/** emuctl's own bookkeeping in a project, never exported. */
const EMUCTL_FILES = ['project-files/emuctl-running.json'];

/**
 * Whether a project file goes into an archive (GNS3's rules): not the .gns3 files (the archive has
 * its own), snapshots only when asked, no captures or temporary files, no logs or OS noise.
 */
export function isExportable(path: string, includeSnapshots: boolean): boolean {
  const segments = path.split('/');
  const file = segments[segments.length - 1];
  if (file.endsWith('.gns3') || EMUCTL_FILES.includes(path)) return false;
  if (!includeSnapshots && segments.slice(0, -1).includes('snapshots')) return false;
  // A snapshot restore being staged (or one a crash left behind).
  if (segments.some((segment) => segment.startsWith('.restore-'))) return false;
  const i = segments.indexOf('project-files');
  if (i >= 0 && ['tmp', 'captures'].includes(segments[i + 1])) return false;
  if (file.endsWith('.log') || file.endsWith('_log.txt') || file === '.DS_Store') return false;
  // Files being written (atomic writes, uploads) are not part of the project yet.
  return !(file.startsWith('.') && file.endsWith('.tmp')) && !file.endsWith('.part');
}

/** The files of a project directory that go into its archive, relative to it. */
export async function exportableFiles(dir: string, includeSnapshots: boolean): Promise<string[]> {
  return (await walkFiles(dir)).filter((path) => isExportable(path, includeSnapshots));
}

/** How a topology is prepared for an archive. */
export interface ExportTopologyOptions {
  /** Keep each node's compute (snapshots, duplicates); a portable export runs every node on `local` and drops the computes. */
  keepComputeId: boolean;
  /** Clear the MAC addresses so that an import gets fresh ones. */
  resetMacAddresses: boolean;
}


/** The topology file content as it goes into an archive (a copy; GNS3's _patch_project_file). */
export function archiveTopology(topology: Record<string, unknown>, opts: ExportTopologyOptions, types: ControllerNodeTypes): Record<string, unknown> {
  const copy = structuredClone(topology) as { topology?: { nodes?: Record<string, unknown>[]; computes?: unknown[] } };
  for (const node of copy.topology?.nodes ?? []) {
    const properties = node.properties as Record<string, unknown> | undefined;
    const kind = types.find(String(node.node_type));
    if (!opts.keepComputeId) {
      node.compute_id = 'local';
      for (const key of kind?.emuctlOnlyProperties ?? []) delete properties?.[key];
    }
    for (const key of Object.keys(properties ?? {})) {
      if (opts.resetMacAddresses && (key === 'mac_address' || key === 'mac_addr')) properties![key] = null;
      // A portable archive names images by file name only: the importing server has its own images directory.
      if (!opts.keepComputeId && !kind?.imageIsReference && key.endsWith('image') && typeof properties![key] === 'string') properties![key] = String(properties![key]).split('/').pop();
    }
  }
  if (!opts.keepComputeId && copy.topology) copy.topology.computes = [];
  return copy as Record<string, unknown>;
}

/** How an extracted archive becomes a project. */
export interface ImportRewrite {
  projectId: string;
  name: string;
  /** Keep each node's compute; otherwise every node runs on `local` (emuctl does not spread nodes over computes). */
  keepComputeId: boolean;
  /** Give nodes, links and drawings new ids (imports, duplicates); a snapshot restore keeps them. */
  newIds: boolean;
  /** Settings that override the archive's (GNS3 resets auto_start/auto_open/auto_close on import). */
  settings: Record<string, unknown>;
}

type TopologyFile = Record<string, unknown> & { topology: { nodes: Record<string, unknown>[]; links: Record<string, unknown>[]; drawings: Record<string, unknown>[]; computes: unknown[] } };

/**
 * Turns an extracted archive in `dir` into a project: the topology is renamed, re-identified and
 * written as `<name>.gns3`; node directories follow their new ids; `project.gns3`, `images/`
 * (emuctl has no image store) and any of emuctl's own bookkeeping files go away. Returns the topology written.
 */
export async function rewriteExtractedProject(dir: string, rewrite: ImportRewrite, read?: TopologyFile): Promise<TopologyFile> {
  const topology = read ?? (await readArchiveTopology(join(dir, ARCHIVE_TOPOLOGY)));
  const { nodes, links, drawings } = topology.topology;
  if (rewrite.newIds) {
    const ids = new Map<string, string>();
    for (const node of nodes) {
      const fresh = randomUUID();
      if (typeof node.node_id === 'string' && isUuid(node.node_id)) {
        ids.set(node.node_id, fresh);
        await moveNodeDirectory(dir, node.node_id, fresh);
      }
      node.node_id = fresh;
    }
    topology.topology.links = links.filter((link) => {
      link.link_id = randomUUID();
      const ends = Array.isArray(link.nodes) && link.nodes.every(isRecord) ? link.nodes : [];
      for (const end of ends) end.node_id = ids.get(String(end.node_id));
      return ends.length === 2 && ends.every((end) => end.node_id !== undefined);
    });
    for (const drawing of drawings) drawing.drawing_id = randomUUID();
  }
  if (!rewrite.keepComputeId) for (const node of nodes) node.compute_id = 'local';
  Object.assign(topology, rewrite.settings, { name: rewrite.name, project_id: rewrite.projectId });
  await writeFileAtomic(join(dir, filenameFor(rewrite.name)), JSON.stringify(topology, null, 4) + '\n');
  await unlink(join(dir, ARCHIVE_TOPOLOGY));
  await rm(join(dir, 'images'), { recursive: true, force: true });
  // An archive never carries emuctl's bookkeeping (see isExportable): one that does is not believed.
  for (const file of EMUCTL_FILES) await rm(join(dir, file), { force: true });
  return topology;
}

/** The largest topology file an archive may hold: a lab of a thousand nodes takes a few MB. */
export const MAX_TOPOLOGY_BYTES = 64 * 1024 * 1024;
/** How deep its JSON may nest (GNS3's own files go about eight levels down) and how wide; read before parsing. */
const TOPOLOGY_SHAPE = { maxDepth: 64, maxItems: 1_000_000 };

/**
 * An archive's topology file, checked for the parts a project needs (409 as in GNS3 when it is
 * missing or corrupted). One over MAX_TOPOLOGY_BYTES is a 413, one nesting too deep a 400: both
 * are refused before they are parsed.
 */
export async function readArchiveTopology(path: string): Promise<TopologyFile> {
  const size = await stat(path).then((s) => (s.isFile() ? s.size : undefined), () => undefined);
  if (size === undefined) throw new ConflictError(`Cannot import project, ${ARCHIVE_TOPOLOGY} file could not be found`);
  if (size > MAX_TOPOLOGY_BYTES) throw new PayloadTooLargeError(`The archive's ${ARCHIVE_TOPOLOGY} is ${size} bytes, over the ${MAX_TOPOLOGY_BYTES} bytes a topology file may have`);
  const text = await readFile(path, 'utf8');
  const shape = jsonShapeProblem(text, TOPOLOGY_SHAPE, `The archive's ${ARCHIVE_TOPOLOGY}`);
  if (shape) throw new InvalidError(shape);
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ConflictError(`Cannot import project, the ${ARCHIVE_TOPOLOGY} file is corrupted`);
  }
  if (!isRecord(data) || !isRecord(data.topology) || typeof data.name !== 'string' || data.name.trim() === '') {
    throw new ConflictError(`Cannot import project, the ${ARCHIVE_TOPOLOGY} file is corrupted`);
  }
  const inner = data.topology;
  for (const key of ['nodes', 'links', 'drawings', 'computes']) if (!Array.isArray(inner[key])) inner[key] = [];
  for (const key of ['nodes', 'links', 'drawings']) {
    if (!(inner[key] as unknown[]).every(isRecord)) throw new ConflictError(`Cannot import project, the ${ARCHIVE_TOPOLOGY} file is corrupted: topology.${key} holds something that is not an object`);
  }
  data.type = 'topology';
  return data as TopologyFile;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Moves `project-files/<type>/<old>` to `<new>` for whichever node type holds it. */
async function moveNodeDirectory(dir: string, oldId: string, newId: string): Promise<void> {
  const root = join(dir, 'project-files');
  for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
    const from = join(root, entry.name, oldId);
    if (entry.isDirectory() && existsSync(from)) await rename(from, join(root, entry.name, newId));
  }
}
