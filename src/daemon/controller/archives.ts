import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AsyncLock } from '../../util/async-lock.js';
import { isUuid } from '../../util/uuid.js';
import { walkFiles } from '../compute/project-files.js';
import { writeFileAtomic } from '../atomic-write.js';
import { ConflictError, diskError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ExtractLimits } from './archive-entries.js';
import type { ComputeRegistry } from './computes.js';
import type { ImportLimits, Limit } from './import-limits.js';
import type { Labs } from './lab.js';
import { checkProjectName, type Project } from './project.js';
import type { ControllerNodeTypes } from './node-types.js';
import { ARCHIVE_TOPOLOGY, archiveTopology, exportableFiles, isExportable, readArchiveTopology, rewriteExtractedProject, type ImportRewrite } from './project-archive.js';
import type { ProjectManager } from './projects.js';
import { extractZip, zipStream, type ZipSource } from './zip-files.js';

/** Options of an export (GNS3's `include_snapshots`, `reset_mac_addresses`, `compression`). */
export interface ExportOptions {
  includeSnapshots?: boolean;
  resetMacAddresses?: boolean;
  /** Snapshots and duplicates keep each node's compute; a portable export does not. */
  keepComputeId?: boolean;
  /** Deflate (GNS3's `zip`, and emuctl's answer to `bzip2`/`lzma`) or store (`none`). */
  compress?: boolean;
}

/** Options of an import. */
export interface ImportOptions {
  name?: string | null;
  /** Directory of the new project, inside the projects directory. */
  path?: string | null;
  keepComputeId?: boolean;
}

/** Portable project archives (GNS3 2.2 `.gns3project`): export, import and, on top of both, duplicate. */
export class ProjectArchives {
  /** Project ids and directories an import is writing into right now. */
  private readonly importing = new Set<string>();
  /** Imports name and register their project one at a time, so that two never take the same free name. */
  private readonly registering = new AsyncLock();

  constructor(private readonly deps: { projects: ProjectManager; labs: Labs; computes: ComputeRegistry; limits: ImportLimits; log: Logger; types: ControllerNodeTypes }) {}

  /** How large an uploaded archive spooled into `spoolDir` may be (max_import_bytes). */
  uploadLimit(spoolDir: string): Promise<Limit> {
    return this.deps.limits.upload(spoolDir);
  }

  /** Throws ConflictError (409) when a project `projectId` exists or is being imported: checked before an upload is read. */
  checkImportable(projectId: string): void {
    if (this.deps.projects.has(projectId)) throw new ConflictError(`Project ID ${projectId} already exists`);
    if (this.importing.has(projectId)) throw new ConflictError(`Project ID ${projectId} is being imported`);
  }

  /**
   * The project as a ZIP stream. A project with a running end host is refused (409), as GNS3
   * does: its files may be changing. Files of nodes on remote computes are fetched first.
   */
  async export(project: Project, opts: ExportOptions = {}): Promise<Readable> {
    if (project.status === 'error') throw new ConflictError(`Project ${project.id} cannot be loaded: ${project.error}`);
    const lab = project.status === 'opened' ? this.deps.labs.of(project) : undefined;
    if (lab && [...lab.nodes.values()].some((n) => n.status !== 'stopped' && !n.alwaysRunning)) throw new ConflictError('Project must be stopped in order to export it');
    if (lab) await lab.persist();
    await project.flushed();
    const topology = archiveTopology(project.toTopologyFile(), { keepComputeId: opts.keepComputeId ?? false, resetMacAddresses: opts.resetMacAddresses ?? false }, this.deps.types);
    const sources: ZipSource[] = [{ name: ARCHIVE_TOPOLOGY, data: Buffer.from(JSON.stringify(topology, null, 4)) }];
    const mtimes = new Map<ZipSource, Date>();
    for (const file of await exportableFiles(project.path, opts.includeSnapshots ?? false)) {
      // Opened when zipped, with no link followed: a file swapped for a link since the listing is refused.
      const source: ZipSource = { name: file, open: () => this.deps.projects.readFile(project.id, file) };
      mtimes.set(source, (await lstat(join(project.path, file))).mtime);
      sources.push(source);
    }
    const temp = await mkdtemp(join(tmpdir(), 'emuctl-export-'));
    const cleanup = () => void rm(temp, { recursive: true, force: true });
    try {
      if (lab) for (const computeId of lab.computesReady) if (computeId !== 'local') sources.push(...(await this.fetchRemoteFiles(project, computeId, temp, opts.includeSnapshots ?? false)));
      for (const source of sources) if ('path' in source) mtimes.set(source, (await stat(source.path)).mtime);
      const stream = zipStream(sources, opts.compress ?? true, (s) => mtimes.get(s) ?? new Date());
      stream.once('end', cleanup).once('error', cleanup).once('close', cleanup);
      return stream;
    } catch (err) {
      cleanup();
      throw err;
    }
  }

  /**
   * Makes a new (closed) project `projectId` from an archive file: extracted (every entry checked,
   * within the import limits; see extractZip), named (a taken name gets `-1`, `-2`…), re-identified,
   * its remote nodes' files sent to their computes. Nothing is left of an import that fails.
   */
  async import(projectId: string, archive: string, opts: ImportOptions = {}): Promise<Project> {
    const { projects } = this.deps;
    this.checkImportable(projectId);
    const dir = projects.directoryFor(projectId, opts.path);
    if (this.importing.has(dir)) throw new ConflictError(`Cannot import the project into ${dir}: another import is writing there`);
    this.importing.add(projectId).add(dir);
    try {
      if (existsSync(dir) && (await readdir(dir)).length > 0) throw new ConflictError(`Cannot import the project into ${dir}: the directory is not empty`);
      await projects.makeDirectory(dir);
      try {
        await extractZip(archive, dir, await this.extractLimits(dir));
        return await this.registering.run(async () => {
          const read = await readArchiveTopology(join(dir, ARCHIVE_TOPOLOGY));
          const name = checkProjectName(projects.freeName(opts.name || (read.name as string)));
          const rewrite: ImportRewrite = {
            projectId, name, keepComputeId: opts.keepComputeId ?? false, newIds: true,
            settings: { auto_start: false, auto_open: false, auto_close: true },
          };
          const topology = await rewriteExtractedProject(dir, rewrite, read);
          await this.pushRemoteNodeFiles(dir, projectId, name, topology.topology.nodes);
          return await projects.register(dir);
        });
      } catch (err) {
        await rm(dir, { recursive: true, force: true });
        throw diskError(dir, err);
      }
    } finally {
      this.importing.delete(projectId);
      this.importing.delete(dir);
    }
  }

  /** GNS3's duplicate: an export (computes kept) imported as a new project. */
  async duplicate(project: Project, opts: { name?: string | null; path?: string | null; resetMacAddresses?: boolean }): Promise<Project> {
    const temp = await mkdtemp(join(tmpdir(), 'emuctl-duplicate-'));
    try {
      const archive = join(temp, 'project.gns3project');
      const exported = await this.export(project, { keepComputeId: true, resetMacAddresses: opts.resetMacAddresses ?? false, compress: false });
      await writeFileAtomic(archive, exported).catch((err) => {
        exported.destroy();
        throw err;
      });
      return await this.import(randomUUID(), archive, { name: opts.name ?? project.name, path: opts.path, keepComputeId: true });
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  }

  /**
   * Prepares a snapshot restore beside the project: the archive extracted and rewritten (ids,
   * computes, the project's own name and auto_* flags kept) in a staging directory inside the
   * project's, so that a broken archive leaves the project as it was. Returns the staging directory.
   */
  async stageRestore(project: Project, archive: string): Promise<{ dir: string; nodes: Record<string, unknown>[] }> {
    const dir = await mkdtemp(join(project.path, '.restore-'));
    try {
      await extractZip(archive, dir, await this.extractLimits(dir));
      const { auto_start, auto_open, auto_close } = project.settings;
      const topology = await rewriteExtractedProject(dir, {
        projectId: project.id, name: project.name, keepComputeId: true, newIds: false, settings: { auto_start, auto_open, auto_close },
      });
      return { dir, nodes: topology.topology.nodes };
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw diskError(dir, err);
    }
  }

  /** Replaces the (closed) project's topology and node files with a staged restore, and sends remote nodes' files to their computes. */
  async completeRestore(project: Project, staged: { dir: string; nodes: Record<string, unknown>[] }): Promise<void> {
    await rm(join(project.path, 'project-files'), { recursive: true, force: true });
    for (const file of await readdir(project.path)) if (file.endsWith('.gns3')) await rm(join(project.path, file), { force: true });
    for (const entry of await readdir(staged.dir)) {
      await rm(join(project.path, entry), { recursive: true, force: true });
      await rename(join(staged.dir, entry), join(project.path, entry));
    }
    await rm(staged.dir, { recursive: true, force: true });
    await this.pushRemoteNodeFiles(project.path, project.id, project.name, staged.nodes);
  }

  /** The limits of an extraction into `dir`, the expanded one evaluated now against the free space there. */
  private async extractLimits(dir: string): Promise<ExtractLimits> {
    return { entries: this.deps.limits.entries, expandedBytes: await this.deps.limits.expanded(dir), ratio: this.deps.limits.ratio };
  }

  /** Downloads the exportable files a remote compute holds for the project into `temp`. */
  private async fetchRemoteFiles(project: Project, computeId: string, temp: string, includeSnapshots: boolean): Promise<ZipSource[]> {
    const api = this.deps.computes.api(computeId);
    const sources: ZipSource[] = [];
    for (const file of await api.listFiles(project.id)) {
      if (!isExportable(file.path, includeSnapshots)) continue;
      const local = join(temp, computeId, file.path);
      await mkdir(dirname(local), { recursive: true });
      await pipeline(await api.readFile(project.id, file.path), createWriteStream(local));
      sources.push({ name: file.path, path: local });
    }
    return sources;
  }

  /** Sends the files of nodes that run on remote computes to those computes, and removes the local copies (GNS3's _move_files_to_compute). */
  private async pushRemoteNodeFiles(dir: string, projectId: string, name: string, nodes: Record<string, unknown>[]): Promise<void> {
    for (const node of nodes) {
      const computeId = String(node.compute_id ?? 'local');
      if (computeId === 'local' || !/^[a-z0-9_]+$/.test(String(node.node_type)) || !isUuid(String(node.node_id))) continue;
      const nodeDir = join('project-files', String(node.node_type), String(node.node_id));
      if (!existsSync(join(dir, nodeDir))) continue;
      const api = this.deps.computes.api(computeId);
      await api.createProject({ project_id: projectId, name });
      for (const file of await walkFiles(join(dir, nodeDir))) await api.writeFile(projectId, `${nodeDir}/${file}`, createReadStream(join(dir, nodeDir, file)));
      await rm(join(dir, nodeDir), { recursive: true, force: true });
    }
  }
}
