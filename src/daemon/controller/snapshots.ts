import { constants } from 'node:fs';
import { writeFileAtomicIn } from '../atomic-write.js';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import type { SafeDir } from '../safe-fs.js';
import type { ProjectArchives } from './archives.js';
import type { ControllerEvents } from './events.js';
import type { Project } from './project.js';
import type { ProjectManager } from './projects.js';
import { uuidV3 } from '../../util/uuid-v3.js';

/** A snapshot as GNS3 returns it. */
export interface Snapshot {
  snapshot_id: string;
  name: string;
  created_at: number;
  project_id: string;
}

/** A file name has at most 255 bytes; the time stamp and extension take 26 of them. */
const MAX_NAME_BYTES = 200;

/** GNS3's snapshot file names: `<name>_<ddmmyy>_<HHMMSS>.gns3project`, in UTC. */
const FILE = /^(.+)_(\d{2})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})\.gns3project$/;

/**
 * Snapshots of a project: archives (GNS3 2.2 `.gns3project`, stored, computes kept) under
 * `<project>/snapshots/`. Their ids are derived from the file names, so they survive restarts.
 */
export class SnapshotManager {
  constructor(private readonly deps: { projects: ProjectManager; archives: ProjectArchives; events: ControllerEvents; removeFromRemoteComputes: (project: Project) => Promise<void> }) {}

  async list(project: Project): Promise<Snapshot[]> {
    const files = await this.files(project);
    return files.flatMap((file) => {
      const m = FILE.exec(file);
      if (!m) return [];
      const [, name, dd, mm, yy, hh, mi, ss] = m;
      const created = Date.UTC(2000 + Number(yy), Number(mm) - 1, Number(dd), Number(hh), Number(mi), Number(ss)) / 1000;
      return [{ snapshot_id: uuidV3(project.id, file), name, created_at: created, project_id: project.id }];
    }).sort((a, b) => a.created_at - b.created_at || a.name.localeCompare(b.name));
  }

  /** The snapshot with that id, or NotFoundError. */
  async get(project: Project, id: string): Promise<Snapshot> {
    const snapshot = (await this.list(project)).find((s) => s.snapshot_id === id);
    if (!snapshot) throw new NotFoundError(`Snapshot ID ${id} doesn't exist`);
    return snapshot;
  }

  /** Takes a snapshot of an opened project (409 while an end host runs, as GNS3 refuses to export then). */
  async create(project: Project, name: string): Promise<Snapshot> {
    if (project.status !== 'opened') throw new ConflictError(`Project '${project.name}' is ${project.status}: open it first`);
    if (/[/\\\0]/.test(name) || name.startsWith('.')) throw new InvalidError(`snapshot name '${name.replace(/\0/g, '\\0')}' must be usable as a file name (no '/', '\\', NUL or leading '.')`);
    if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new InvalidError(`snapshot name is too long (at most ${MAX_NAME_BYTES} bytes)`);
    if ((await this.list(project)).some((s) => s.name === name)) throw new ConflictError(`The snapshot name ${name} already exists`);
    const now = new Date();
    const file = `${name}_${stamp(now)}.gns3project`;
    const existed = await this.inSnapshots(project, false, async () => true).catch(() => false);
    const archive = await this.deps.archives.export(project, { keepComputeId: true, compress: false });
    try {
      await this.inSnapshots(project, true, (dir) => writeFileAtomicIn((entry) => dir.at(entry), file, `snapshots/${file}`, archive));
    } catch (err) {
      archive.destroy();
      if (!existed) await this.deps.projects.withDirectory(project, '', false, (dir) => dir.remove('snapshots', true)).catch(() => {});
      throw err;
    }
    return { snapshot_id: uuidV3(project.id, file), name, created_at: Math.floor(now.getTime() / 1000), project_id: project.id };
  }

  async remove(project: Project, id: string): Promise<void> {
    await this.get(project, id);
    const file = await this.fileOf(project, id);
    await this.inSnapshots(project, false, (dir) => dir.remove(file));
  }

  /**
   * Puts the project back as the snapshot has it: closed (nodes stopped, freed on their computes),
   * its node files and topology replaced by the snapshot's, then opened again with every node stopped.
   */
  async restore(project: Project, id: string): Promise<Project> {
    const snapshot = await this.get(project, id);
    const file = await this.fileOf(project, id);
    // The archive is read through the descriptor opened with no link followed.
    const staged = await this.inSnapshots(project, false, async (dir) => {
      const archive = await dir.file(file, constants.O_RDONLY);
      try {
        return await this.deps.archives.stageRestore(project, `/proc/self/fd/${archive.fd}`);
      } finally {
        await archive.close();
      }
    });
    await this.deps.projects.close(project.id, { notify: false });
    await this.deps.removeFromRemoteComputes(project);
    await this.deps.archives.completeRestore(project, staged);
    await this.deps.projects.reload(project);
    await this.deps.projects.open(project.id);
    this.deps.events.publish('snapshot.restored', { ...snapshot }, project.id);
    return project;
  }

  private async fileOf(project: Project, id: string): Promise<string> {
    const files = await this.files(project);
    const file = files.find((f) => FILE.test(f) && uuidV3(project.id, f) === id);
    if (!file) throw new NotFoundError(`Snapshot ID ${id} doesn't exist`);
    return file;
  }

  /** The names in the project's `snapshots` directory (none when it is missing; 403 when it is a link). */
  private async files(project: Project): Promise<string[]> {
    return this.inSnapshots(project, false, async (dir) => (await dir.entries()).filter((e) => e.isFile()).map((e) => e.name)).catch((err) => {
      if (err instanceof NotFoundError) return [];
      throw err;
    });
  }

  /** Runs `use` on the project's `snapshots` directory, reached with no link followed; made (0700) with `create`. */
  private inSnapshots<T>(project: Project, create: boolean, use: (dir: SafeDir) => Promise<T>): Promise<T> {
    return this.deps.projects.withDirectory(project, 'snapshots', create, use);
  }
}


/** `ddmmyy_HHMMSS` in UTC, GNS3's snapshot time stamp. */
function stamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getUTCDate())}${two(date.getUTCMonth() + 1)}${two(date.getUTCFullYear() % 100)}_${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}`;
}
