import { randomUUID } from 'node:crypto';
import { lstat, readdir, rm, unlink } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { ConflictError, DomainError, InvalidError, NotFoundError } from '../errors.js';
import { checkRelativePath, openProjectFile, projectBelow, writeProjectFile } from '../compute/project-files.js';
import { ensurePrivateDir, isWithin, makeDirs, openForRead, PRIVATE_FILE_MODE, withDir, type SafeDir } from '../safe-fs.js';
import type { Logger } from '../logger.js';
import type { ControllerEvents } from './events.js';
import type { PROJECT_CREATE_SCHEMA, PROJECT_UPDATE_SCHEMA } from '../schemas/project.js';
import type { FromSchema } from '../schemas/validation.js';
import { checkProjectName, filenameFor, Project, PROJECT_SETTING_DEFAULTS, type ProjectSettings, type Topology } from './project.js';
import { normalizeTopology } from './topology-compat.js';

/** What the node and link layer does when a project opens, closes or goes away. */
export interface ProjectLifecycle {
  opened?(project: Project): Promise<void>;
  closing?(project: Project): Promise<void>;
  deleting?(project: Project): Promise<void>;
}

/** A project create body, as PROJECT_CREATE_SCHEMA accepts it. */
export type ProjectCreate = FromSchema<typeof PROJECT_CREATE_SCHEMA>;
/** A project update body, as PROJECT_UPDATE_SCHEMA accepts it. */
export type ProjectUpdate = FromSchema<typeof PROJECT_UPDATE_SCHEMA>;

/** The controller's projects: loaded from the projects directory, persisted as .gns3 files. */
export class ProjectManager {
  private readonly projects = new Map<string, Project>();
  private readonly lifecycles: ProjectLifecycle[] = [];

  constructor(private readonly deps: { projectsDir: string; log: Logger; events: ControllerEvents }) {}

  /** Registers the hooks run when projects open, close and are deleted. */
  addLifecycle(lifecycle: ProjectLifecycle): void {
    this.lifecycles.push(lifecycle);
  }

  /** Reads every `<projects_dir>/<id>/*.gns3`; a corrupt file gives a project in status `error`, never a failed start. */
  async load(): Promise<void> {
    await ensurePrivateDir(this.deps.projectsDir);
    for (const entry of await readdir(this.deps.projectsDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(this.deps.projectsDir, entry.name);
      await this.makePrivate(entry.name);
      const project = await this.loadOne(entry.name, dir);
      if (project) this.projects.set(project.id, project);
    }
  }

  private async loadOne(dirName: string, dir: string, file?: string): Promise<Project | undefined> {
    file ??= (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.gns3')).sort()[0];
    if (!file) return undefined;
    try {
      const project = await readProjectFile(this.deps.projectsDir, dir, file);
      project.status = 'closed';
      return project;
    } catch (err) {
      const message = `cannot load project file ${join(dir, file)}: ${(err as Error).message}`;
      this.deps.log.error(message);
      const broken = new Project(dirName, dirName, dir, { ...PROJECT_SETTING_DEFAULTS }, file);
      broken.status = 'error';
      broken.error = message;
      return broken;
    }
  }

  /** Registers the (closed) project whose files are in `dir`, e.g. after an import. */
  async register(dir: string): Promise<Project> {
    const project = await this.loadOne(basename(dir), dir);
    if (!project || project.status === 'error') throw new ConflictError(project?.error ?? `No project file in ${dir}`);
    this.assertNameFree(project.name);
    if (this.projects.has(project.id)) throw new ConflictError(`Project ID ${project.id} already exists`);
    this.projects.set(project.id, project);
    this.deps.events.publish('project.created', project.toJSON(), project.id);
    return project;
  }

  /** A stream of a file of the project, reached with no link followed (403), 404 when missing. */
  readFile(id: string, relativePath: string): Promise<Readable> {
    const project = this.get(id);
    return openProjectFile(this.deps.projectsDir, projectBelow(this.deps.projectsDir, project.path, checkRelativePath(relativePath)));
  }

  /** Writes a file of the project from a stream (0600, directories 0700), with no link followed (403). */
  writeFile(id: string, relativePath: string, data: Readable): Promise<void> {
    const project = this.get(id);
    return writeProjectFile(this.deps.projectsDir, projectBelow(this.deps.projectsDir, project.path, checkRelativePath(relativePath)), data);
  }

  /** Re-reads a closed project's .gns3 file (after a snapshot restore rewrote it). */
  async reload(project: Project): Promise<void> {
    const fresh = await readProjectFile(this.deps.projectsDir, project.path, project.filename);
    project.settings = fresh.settings;
    project.revision = fresh.revision;
    project.topology = fresh.topology;
  }

  /**
   * Opens the project of a .gns3 file inside the projects directory (GNS3's `POST /v2/projects/load`):
   * the project already known, or a new one registered from that file.
   */
  async loadFile(path: string): Promise<Project> {
    const file = resolve(path);
    if (!file.endsWith('.gns3')) throw new InvalidError(`'${path}' is not a .gns3 project file`);
    this.resolvePath('', dirname(file));
    const found = await readProjectFile(this.deps.projectsDir, dirname(file), basename(file)).catch((err: NodeJS.ErrnoException) => {
      if (err instanceof DomainError) throw err;
      throw new ConflictError(`Cannot load project file ${path}: ${err.message}`);
    });
    if (!this.projects.has(found.id)) {
      this.assertNameFree(found.name);
      found.status = 'closed';
      this.projects.set(found.id, found);
      this.deps.events.publish('project.created', found.toJSON(), found.id);
    }
    return this.open(found.id);
  }

  /** A project name not used yet: `base`, else `base-1`, `base-2`… (as GNS3 names imports and duplicates). */
  freeName(base: string): string {
    const names = new Set(this.list().map((p) => p.name));
    if (!names.has(base)) return base;
    for (let i = 1; ; i++) if (!names.has(`${base}-${i}`)) return `${base}-${i}`;
  }

  /** The directory a new project gets: `path` if given (inside the projects directory), else `<projects_dir>/<id>`. */
  directoryFor(id: string, path?: string | null): string {
    const dir = this.resolvePath(id, path ?? undefined);
    this.assertNotNested(dir);
    return dir;
  }

  /** Makes a project directory (0700) and its parents below the projects directory, with no link followed (403). */
  makeDirectory(path: string): Promise<void> {
    return makeDirs(this.deps.projectsDir, projectBelow(this.deps.projectsDir, path));
  }

  /** Runs `use` on a directory of the project (`snapshots`…), reached with no link followed (403); made (0700) with `create`. */
  withDirectory<T>(project: Project, relativePath: string, create: boolean, use: (dir: SafeDir) => Promise<T>): Promise<T> {
    return withDir(this.deps.projectsDir, projectBelow(this.deps.projectsDir, project.path, relativePath).split('/'), create, use);
  }

  has(id: string): boolean {
    return this.projects.has(id);
  }

  /** Opens the projects whose auto_open is set (after load and lifecycle registration). */
  async autoOpen(): Promise<void> {
    for (const project of this.projects.values()) {
      if (project.status === 'closed' && project.settings.auto_open) await this.open(project.id).catch((err) => this.deps.log.error(`auto-open ${project.name}: ${err.message}`));
    }
  }

  list(): Project[] {
    return [...this.projects.values()];
  }

  /** The project with that id, or NotFoundError. */
  get(id: string): Project {
    const project = this.projects.get(id);
    if (!project) throw new NotFoundError(`Project ID ${id} doesn't exist`);
    return project;
  }

  /** Gets a project that is opened (nodes and links can change only then). */
  getOpened(id: string): Project {
    const project = this.get(id);
    if (project.status !== 'opened') throw new ConflictError(`Project '${project.name}' is ${project.status}: open it first`);
    return project;
  }

  async create(body: ProjectCreate): Promise<Project> {
    const id = body.project_id ?? randomUUID();
    if (this.projects.has(id)) throw new ConflictError(`Project ID ${id} already exists`);
    checkProjectName(body.name);
    this.assertNameFree(body.name);
    const path = this.directoryFor(id, body.path);
    const { name, project_id: _id, path: _path, ...settings } = body;
    const project = new Project(id, name, path, { ...PROJECT_SETTING_DEFAULTS, ...settings });
    const existed = await lstat(path).then(() => true, () => false);
    // Made with no link followed below the projects directory, private (0700).
    await this.makeDirectory(project.capturesDir);
    try {
      await project.save();
    } catch (err) {
      if (!existed) await rm(path, { recursive: true, force: true }).catch(() => {});
      throw err;
    }
    this.projects.set(id, project);
    this.deps.events.publish('project.created', project.toJSON(), id);
    return project;
  }

  /** Renames or changes settings; if the write fails, the project is as it was (507). */
  async update(id: string, body: ProjectUpdate): Promise<Project> {
    const project = this.get(id);
    if (project.status === 'error') throw new ConflictError(`Project ${id} cannot be loaded: ${project.error}`);
    if (body.path !== undefined && body.path !== null && resolve(body.path) !== project.path) throw new ConflictError('Moving a project to another path is not supported');
    const { name, project_id: _id, path: _path, ...settings } = body;
    const oldFile = project.filePath;
    const before = { name: project.name, filename: project.filename, settings: project.settings };
    if (name !== undefined && name !== project.name) {
      checkProjectName(name);
      this.assertNameFree(name, id);
      project.name = name;
      project.filename = filenameFor(name);
    }
    project.settings = { ...project.settings, ...settings };
    await project.save(() => Object.assign(project, before));
    if (oldFile !== project.filePath) await unlink(oldFile).catch(() => {});
    this.deps.events.publish('project.updated', project.toJSON(), id);
    return project;
  }

  async open(id: string): Promise<Project> {
    const project = this.get(id);
    if (project.status === 'error') throw new ConflictError(`Project ${id} cannot be opened: ${project.error}`);
    if (project.status === 'opened') return project;
    project.status = 'opened';
    for (const l of this.lifecycles) await l.opened?.(project);
    this.deps.events.publish('project.updated', project.toJSON(), id);
    return project;
  }

  /** Closes a project; `notify: false` for a close that is internal (a snapshot restore closes and reopens). */
  async close(id: string, { notify = true } = {}): Promise<Project> {
    const project = this.get(id);
    if (project.status !== 'opened') return project;
    for (const l of this.lifecycles) await l.closing?.(project);
    await project.flushed();
    project.status = 'closed';
    if (notify) this.deps.events.publish('project.closed', project.toJSON(), id);
    return project;
  }

  async delete(id: string): Promise<void> {
    const project = this.get(id);
    if (project.status === 'opened') for (const l of this.lifecycles) await l.closing?.(project);
    for (const l of this.lifecycles) await l.deleting?.(project);
    await project.flushed();
    this.projects.delete(id);
    await rm(project.path, { recursive: true, force: true });
    this.deps.events.publish('project.deleted', project.toJSON(), id);
  }

  /** Closes every opened project (daemon shutdown): nodes stopped, files flushed. */
  async closeAll(): Promise<void> {
    for (const project of this.projects.values()) {
      if (project.status === 'opened') {
        for (const l of this.lifecycles) await l.closing?.(project).catch((err) => this.deps.log.error(`closing ${project.name}: ${err.message}`));
      }
      await project.flushed();
    }
  }

  private assertNameFree(name: string, exceptId?: string): void {
    for (const p of this.projects.values()) {
      if (p.name === name && p.id !== exceptId) throw new ConflictError(`Project '${name}' already exists`);
    }
  }

  /** Tightens a project directory made by an older version (0755) to 0700; links are left alone. */
  private async makePrivate(dirName: string): Promise<void> {
    await withDir(this.deps.projectsDir, [dirName], false, (dir) => dir.makePrivate()).catch((err) => this.deps.log.warn(`cannot make project directory ${dirName} private: ${(err as Error).message}`));
  }

  /** A new project's directory may not be, hold or sit inside another project's (409). */
  private assertNotNested(path: string): void {
    for (const p of this.projects.values()) {
      if (isWithin(path, p.path) || isWithin(p.path, path)) throw new ConflictError(`path ${path} overlaps the directory of project '${p.name}'`);
    }
  }

  private resolvePath(id: string, requested?: string | null): string {
    const root = resolve(this.deps.projectsDir);
    const path = resolve(requested ?? join(root, id));
    if (path !== root && path.startsWith(root + sep)) return path;
    throw new InvalidError(`path must be inside the projects directory ${root}`);
  }
}

/** A project read from its .gns3 file (status `opened` until the caller says otherwise). */
/** Reads `dir/file` below the projects directory with no link followed (a planted link to a file elsewhere is refused, 403). */
async function readProjectFile(projectsDir: string, dir: string, file: string): Promise<Project> {
  const handle = await openForRead(projectsDir, projectBelow(projectsDir, dir, file));
  // A file written by an older version (0644) is made private as it is read.
  const data = JSON.parse(await handle.chmod(PRIVATE_FILE_MODE).then(() => handle.readFile('utf8')).finally(() => handle.close())) as Record<string, unknown>;
  if (data.type !== 'topology' || typeof data.project_id !== 'string' || typeof data.name !== 'string') throw new Error('not a GNS3 topology file');
  const project = new Project(data.project_id, data.name, dir, pickSettings(data), file);
  project.revision = typeof data.revision === 'number' ? data.revision : project.revision;
  project.topology = normalizeTopology({ ...project.topology, ...(data.topology as Partial<Topology>) });
  return project;
}

function pickSettings(data: Record<string, unknown>): ProjectSettings {
  const settings = { ...PROJECT_SETTING_DEFAULTS } as Record<string, unknown>;
  for (const key of Object.keys(settings)) if (key in data) settings[key] = data[key];
  return settings as ProjectSettings;
}
