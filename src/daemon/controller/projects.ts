import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, unlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ControllerEvents } from './events.js';
import { checkProjectName, filenameFor, Project, PROJECT_SETTING_DEFAULTS, type ProjectSettings, type Topology } from './project.js';

/** What the node and link layer does when a project opens, closes or goes away. */
export interface ProjectLifecycle {
  opened?(project: Project): Promise<void>;
  closing?(project: Project): Promise<void>;
  deleting?(project: Project): Promise<void>;
}

export interface ProjectCreate extends Partial<ProjectSettings> {
  name: string;
  project_id?: string;
  path?: string;
}

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
    await mkdir(this.deps.projectsDir, { recursive: true });
    for (const entry of await readdir(this.deps.projectsDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(this.deps.projectsDir, entry.name);
      const project = await this.loadOne(entry.name, dir);
      if (project) this.projects.set(project.id, project);
    }
  }

  private async loadOne(dirName: string, dir: string): Promise<Project | undefined> {
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.gns3'));
    if (files.length === 0) return undefined;
    const file = files.sort()[0];
    try {
      const data = JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, unknown>;
      if (data.type !== 'topology' || typeof data.project_id !== 'string' || typeof data.name !== 'string') throw new Error('not a GNS3 topology file');
      const project = new Project(data.project_id, data.name, dir, pickSettings(data), file);
      project.revision = typeof data.revision === 'number' ? data.revision : project.revision;
      project.topology = { ...project.topology, ...(data.topology as Partial<Topology>) };
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
    const path = this.resolvePath(id, body.path);
    const { name, project_id: _id, path: _path, ...settings } = body;
    const project = new Project(id, name, path, { ...PROJECT_SETTING_DEFAULTS, ...settings });
    const made = await mkdir(path, { recursive: true });
    try {
      await mkdir(project.capturesDir, { recursive: true });
      await project.save();
    } catch (err) {
      if (made) await rm(made, { recursive: true, force: true }).catch(() => {});
      throw err;
    }
    this.projects.set(id, project);
    this.deps.events.publish('project.created', project.toJSON(), id);
    return project;
  }

  async update(id: string, body: Partial<ProjectCreate>): Promise<Project> {
    const project = this.get(id);
    if (project.status === 'error') throw new ConflictError(`Project ${id} cannot be loaded: ${project.error}`);
    if (body.path !== undefined && resolve(body.path) !== project.path) throw new ConflictError('Moving a project to another path is not supported');
    const { name, project_id: _id, path: _path, ...settings } = body;
    const oldFile = project.filePath;
    if (name !== undefined && name !== project.name) {
      checkProjectName(name);
      this.assertNameFree(name, id);
      project.name = name;
      project.filename = filenameFor(name);
    }
    project.settings = { ...project.settings, ...settings };
    await project.save();
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

  async close(id: string): Promise<Project> {
    const project = this.get(id);
    if (project.status !== 'opened') return project;
    for (const l of this.lifecycles) await l.closing?.(project);
    await project.flushed();
    project.status = 'closed';
    this.deps.events.publish('project.closed', project.toJSON(), id);
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

  private resolvePath(id: string, requested?: string): string {
    const root = resolve(this.deps.projectsDir);
    const path = resolve(requested ?? join(root, id));
    if (path !== root && path.startsWith(root + sep)) return path;
    throw new InvalidError(`path must be inside the projects directory ${root}`);
  }
}

function pickSettings(data: Record<string, unknown>): ProjectSettings {
  const settings = { ...PROJECT_SETTING_DEFAULTS } as Record<string, unknown>;
  for (const key of Object.keys(settings)) if (key in data) settings[key] = data[key];
  return settings as ProjectSettings;
}
