import { join } from 'node:path';
import { InvalidError, storageError } from '../errors.js';
import { failpointErrno } from '../failpoints.js';
import { writeFileAtomic } from '../atomic-write.js';
import { GroupCommit } from './group-commit.js';

export type ProjectStatus = 'opened' | 'closed' | 'error';

/** Project settings kept as GNS3 keeps them (all persisted in the .gns3 file). */
export const PROJECT_SETTING_DEFAULTS = {
  auto_close: true,
  auto_open: false,
  auto_start: false,
  scene_height: 1000,
  scene_width: 2000,
  zoom: 100,
  show_layers: false,
  snap_to_grid: false,
  show_grid: false,
  grid_size: 75,
  drawing_grid_size: 25,
  show_interface_labels: false,
  supplier: null as unknown,
  variables: null as unknown,
};
export type ProjectSettings = typeof PROJECT_SETTING_DEFAULTS;

export interface Topology {
  nodes: Record<string, unknown>[];
  links: Record<string, unknown>[];
  computes: Record<string, unknown>[];
  drawings: Record<string, unknown>[];
}

/** Where an opened project's topology lives while its lab runs: the live objects, and their JSON text. */
export interface TopologySource {
  /** The topology as objects (for archives, snapshots and stats). */
  topology(): Topology;
  /** The topology as compact JSON, in chunks reused from what did not change since the last write. */
  chunks(): Buffer[];
}

/** GNS3 version written into topology files; GNS3 2.2 opens files of its own major.minor. */
export const TOPOLOGY_VERSION = '2.2.0';

/** One controller project: its settings, status, topology and the .gns3 file it persists to. */
export class Project {
  status: ProjectStatus = 'opened';
  error?: string;
  revision = 9;
  private stored: Topology = { nodes: [], links: [], computes: [], drawings: [] };
  private source: TopologySource | null = null;
  private readonly writer = new GroupCommit(() => this.write(), (err) => storageError(this.filePath, err));

  constructor(
    readonly id: string,
    public name: string,
    readonly path: string,
    public settings: ProjectSettings,
    public filename = filenameFor(name),
  ) {}

  get filePath(): string {
    return join(this.path, this.filename);
  }

  get capturesDir(): string {
    return join(this.path, 'project-files', 'captures');
  }

  /** The topology: the lab's live one while the project is opened, else the one read from the file. */
  get topology(): Topology {
    return this.source ? this.source.topology() : this.stored;
  }

  set topology(topology: Topology) {
    this.stored = topology;
  }

  /** Makes the lab's live objects the topology; `null` (on close) keeps their last state. */
  attach(source: TopologySource | null): void {
    if (this.source && !source) this.stored = this.source.topology();
    this.source = source;
  }

  /** The GNS3 project JSON. */
  toJSON(): Record<string, unknown> {
    return {
      project_id: this.id,
      name: this.name,
      path: this.path,
      filename: this.filename,
      status: this.status,
      ...this.settings,
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** The GNS3 topology file content. */
  toTopologyFile(): Record<string, unknown> {
    return {
      project_id: this.id,
      name: this.name,
      revision: this.revision,
      ...this.settings,
      topology: this.topology,
      type: 'topology',
      version: TOPOLOGY_VERSION,
    };
  }

  /**
   * Persists the project with group commit: resolves once a write holding the current state is on
   * disk. If that write fails, `undo` reverts the caller's change in memory and the promise rejects
   * with a 507 naming the disk problem.
   */
  save(undo?: () => void): Promise<void> {
    return this.writer.commit(undo);
  }

  /** Resolves when no write is pending. */
  flushed(): Promise<void> {
    return this.writer.idle();
  }

  /** One write: its content is taken at once (the snapshot of this write), then written atomically. */
  private write(): Promise<void> {
    const chunks = this.fileChunks();
    failpointErrno('topology.write');
    return writeFileAtomic(this.filePath, chunks);
  }

  /** The topology file as compact JSON (GNS3 reads it either way), settings first as GNS3 writes them. */
  private fileChunks(): Buffer[] {
    const head = JSON.stringify({ project_id: this.id, name: this.name, revision: this.revision, ...this.settings });
    const topology = this.source ? this.source.chunks() : [Buffer.from(JSON.stringify(this.stored))];
    return [Buffer.from(`${head.slice(0, -1)},"topology":`), ...topology, Buffer.from(`,"type":"topology","version":${JSON.stringify(TOPOLOGY_VERSION)}}\n`)];
  }
}

/** Project names are at most this long, so that `<name>.gns3` fits in a file name (255 bytes). */
export const MAX_PROJECT_NAME_LENGTH = 250;

/** A project name whose topology file name fits; InvalidError naming the limit otherwise. */
export function checkProjectName(name: string): string {
  if (name.length > MAX_PROJECT_NAME_LENGTH) {
    throw new InvalidError(`Project name is too long (${name.length} characters): the limit is ${MAX_PROJECT_NAME_LENGTH}, so that its file '<name>.gns3' fits in a file name`);
  }
  return name;
}

/** The topology file name for a project name: `<name>.gns3`, with characters unsafe in a file name replaced. */
export function filenameFor(name: string): string {
  return `${name.replace(/[^\w .()@+-]/g, '_').replace(/^\.+/, '_')}.gns3`;
}
