import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';

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

/** GNS3 version written into topology files; GNS3 2.2 opens files of its own major.minor. */
export const TOPOLOGY_VERSION = '2.2.0';

/** One controller project: its settings, status, topology and the .gns3 file it persists to. */
export class Project {
  status: ProjectStatus = 'opened';
  error?: string;
  revision = 9;
  topology: Topology = { nodes: [], links: [], computes: [], drawings: [] };
  private saving: Promise<void> | null = null;
  private dirty = false;

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

  /** Persists the project; concurrent calls coalesce and each resolves once its state is on disk. */
  save(): Promise<void> {
    this.dirty = true;
    if (!this.saving) this.saving = this.writeWhileDirty().finally(() => (this.saving = null));
    return this.saving;
  }

  /** Resolves when no write is pending. */
  async flushed(): Promise<void> {
    while (this.saving) await this.saving.catch(() => {});
  }

  private async writeWhileDirty(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      await writeFileAtomic(this.filePath, JSON.stringify(this.toTopologyFile(), null, 4) + '\n');
    }
  }
}

/** The topology file name for a project name: `<name>.gns3`, with characters unsafe in a file name replaced, short enough for any file system. */
export function filenameFor(name: string): string {
  return `${name.replace(/[^\w .()@+-]/g, '_').replace(/^\.+/, '_').slice(0, 200)}.gns3`;
}
